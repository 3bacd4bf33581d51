package app

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"time"

	"garrison/metrics"
)

// registerGauges adds what is read at each scrape: the agent queue, the
// fold's lag, the database's files, the Go runtime.
func (a *App) registerGauges() {
	m, dataDir := a.Metrics, a.settings.DataDir
	a.declareCounters()
	registerProcess(m, a.version)
	read := func(f func(ctx context.Context) (float64, error)) func() []metrics.Sample {
		return func() []metrics.Sample {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			v, err := f(ctx)
			if err != nil {
				return nil
			}
			return []metrics.Sample{{Value: v}}
		}
	}
	m.Gauge("garrison_agent_queue_depth", "Agent runs waiting for a worker.", read(func(ctx context.Context) (float64, error) {
		n, err := a.Store.QueueDepth(ctx)
		return float64(n), err
	}))
	m.Gauge("garrison_fold_lag_events", "Stored events the fold has not counted into the rollups yet.", read(func(ctx context.Context) (float64, error) {
		n, err := a.Store.FoldLag(ctx)
		return float64(n), err
	}))
	m.Gauge("garrison_database_bytes", "Size of the database files, by file (db, wal).", func() []metrics.Sample {
		var out []metrics.Sample
		for _, f := range []struct{ label, suffix string }{{"db", ""}, {"wal", "-wal"}} {
			if st, err := os.Stat(filepath.Join(dataDir, "garrison.db"+f.suffix)); err == nil {
				out = append(out, metrics.Sample{Labels: []string{"file", f.label}, Value: float64(st.Size())})
			}
		}
		return out
	})
	m.Gauge("go_goroutines", "Goroutines that currently exist.", func() []metrics.Sample {
		return []metrics.Sample{{Value: float64(runtime.NumGoroutine())}}
	})
	m.Gauge("go_memstats_heap_inuse_bytes", "Heap bytes in use.", func() []metrics.Sample {
		return []metrics.Sample{{Value: runtimeValue("/memory/classes/heap/objects:bytes") + runtimeValue("/memory/classes/heap/unused:bytes")}}
	})
	m.Gauge("go_gc_cycles", "Completed garbage collection cycles.", func() []metrics.Sample {
		return []metrics.Sample{{Value: runtimeValue("/gc/cycles/total:gc-cycles")}}
	})
}

// runtimeValue reads one of the runtime's own metrics: unlike
// runtime.ReadMemStats, without stopping the world at every scrape.
func runtimeValue(name string) float64 {
	s := []rtmetrics.Sample{{Name: name}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() == rtmetrics.KindUint64 {
		return float64(s[0].Value.Uint64())
	}
	return 0
}
