package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ingestResult is one ingest phase.
type ingestResult struct {
	Phase         string  `json:"phase"`
	Senders       int     `json:"senders"`
	Events        int     `json:"events"`
	StoredBefore  int     `json:"stored_before"`
	Seconds       float64 `json:"seconds"`
	EventsPerSec  float64 `json:"events_per_sec"`
	Retries503    int     `json:"retries_503,omitempty"`
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
	PeakWALMiB    float64 `json:"peak_wal_mib"`
	SlowestPostMS float64 `json:"slowest_post_ms"`
	ServerCores   float64 `json:"server_cores"`
	OtherCores    float64 `json:"other_user_cores"` // programs other than the server and the suite
}

// batch is one POST /api/events body and the organization it is for: ""
// is the key's own, a client's id is sent as X-Garrison-Org (a provider's
// key acting in its client).
type batch struct {
	body []byte
	org  string
	// contentType ("" is application/json) and want (0: one per
	// `{"type"`) are another source's: its media type and its records.
	contentType string
	want        int
}

// sendAll posts every batch from the channel with k concurrent senders and
// stops at the first error. A 503 (the in-flight cap) is retried after its
// Retry-After, as a well-behaved sender would, and counted.
func sendAll(ctx context.Context, cl *http.Client, url, key string, bodies <-chan batch, k int) (retries int, slowest time.Duration, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg        sync.WaitGroup
		once      sync.Once
		nRetries  atomic.Int64
		slowestNS atomic.Int64
	)
	for range k {
		wg.Go(func() {
			for body := range bodies {
				if ctx.Err() != nil {
					return
				}
				for {
					began := time.Now()
					retryAfter, e := post(ctx, cl, url, key, body)
					if d := int64(time.Since(began)); d > slowestNS.Load() {
						slowestNS.Store(d) // racy max is fine for a report
					}
					if e != nil {
						once.Do(func() { err = e; cancel() })
						return
					}
					if retryAfter == 0 {
						break
					}
					nRetries.Add(1)
					select {
					case <-ctx.Done():
						return
					case <-time.After(retryAfter):
					}
				}
			}
		})
	}
	wg.Wait()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return int(nRetries.Load()), time.Duration(slowestNS.Load()), err
}

// post sends one batch, in org when it is not ""; a 503 returns how long
// to wait before retrying.
func post(ctx context.Context, cl *http.Client, url, key string, b batch) (time.Duration, error) {
	body, org := b.body, b.org
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", cmp.Or(b.contentType, "application/json"))
	req.Header.Set("Authorization", "Bearer "+key)
	if org != "" {
		req.Header.Set("X-Garrison-Org", org)
	}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	switch resp.StatusCode {
	case http.StatusCreated:
		var out struct {
			Data struct {
				Count int `json:"count"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			return 0, fmt.Errorf("ingest: %w", err)
		}
		want := b.want
		if want == 0 {
			want = bytes.Count(body, []byte(`{"type"`))
		}
		if out.Data.Count != want {
			return 0, fmt.Errorf("ingest stored %d events of %d", out.Data.Count, want)
		}
		return 0, nil
	case http.StatusServiceUnavailable:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return time.Duration(max(secs, 1)) * time.Second, nil
	}
	return 0, fmt.Errorf("ingest: %s %s", resp.Status, lastLines(string(raw), 3))
}

// queue puts ready bodies (for the key's own organization) in a closed
// channel.
func queue(bodies [][]byte) <-chan batch {
	ch := make(chan batch, len(bodies))
	for _, b := range bodies {
		ch <- batch{body: b}
	}
	close(ch)
	return ch
}

// produce makes n events in batches on the fly, a few ahead of the
// senders, calling report with the events handed out so far.
func produce(ctx context.Context, g *generator, n int, report func(done int)) <-chan batch {
	ch := make(chan batch, 4)
	go func() {
		defer close(ch)
		for done := 0; done < n; {
			k := min(n-done, g.size)
			select {
			case ch <- batch{body: g.appendBatch(make([]byte, 0, k*280), k)}:
			case <-ctx.Done():
				return
			}
			done += k
			report(done)
		}
	}()
	return ch
}
