package main

import (
	"os"
	"sync"
	"time"
)

// sampler reads the server's VmRSS and the size of its WAL every 50 ms for
// the whole run, across restarts, and keeps the peaks per phase.
type sampler struct {
	mu      sync.Mutex
	pid     int    // 0 while no server runs
	phase   string // what the peaks are filed under now
	walPath string
	peaks   map[string]*peak
	order   []string // phases in the order they began
	quit    chan struct{}
	done    chan struct{}
}

// peak is the highest reading of one phase.
type peak struct {
	RSSMiB  float64 `json:"rss_mib"`
	WALMiB  float64 `json:"wal_mib"`
	Samples int     `json:"samples"`
}

func newSampler(walPath string) *sampler {
	s := &sampler{walPath: walPath, peaks: map[string]*peak{}, quit: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// watch names the process to sample (0: none) and the phase from now on.
func (s *sampler) watch(pid int, phase string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pid, s.phase = pid, phase
	if s.peaks[phase] == nil {
		s.peaks[phase] = &peak{}
		s.order = append(s.order, phase)
	}
}

func (s *sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		pid, phase := s.pid, s.phase
		s.mu.Unlock()
		if pid == 0 {
			continue
		}
		rss := rssMiB(pid)
		var wal float64
		if st, err := os.Stat(s.walPath); err == nil {
			wal = float64(st.Size()) / (1 << 20)
		}
		s.mu.Lock()
		p := s.peaks[phase]
		p.RSSMiB, p.WALMiB = max(p.RSSMiB, rss), max(p.WALMiB, wal)
		p.Samples++
		s.mu.Unlock()
	}
}

// stop ends sampling.
func (s *sampler) stop() {
	close(s.quit)
	<-s.done
}

// get is the peak of one phase (zero if it never ran).
func (s *sampler) get(phase string) peak {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.peaks[phase]; p != nil {
		return *p
	}
	return peak{}
}

// overall is the highest of every phase.
func (s *sampler) overall() peak {
	s.mu.Lock()
	defer s.mu.Unlock()
	var o peak
	for _, p := range s.peaks {
		o.RSSMiB, o.WALMiB = max(o.RSSMiB, p.RSSMiB), max(o.WALMiB, p.WALMiB)
		o.Samples += p.Samples
	}
	return o
}

// all is every phase's peak, in order.
func (s *sampler) all() []namedPeak {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]namedPeak, 0, len(s.order))
	for _, name := range s.order {
		out = append(out, namedPeak{Phase: name, peak: *s.peaks[name]})
	}
	return out
}

type namedPeak struct {
	Phase string `json:"phase"`
	peak
}
