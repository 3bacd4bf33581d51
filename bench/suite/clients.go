package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The clients target is a provider's fleet view, GET /api/clients: the
// suite's organization becomes a provider with --clients client
// organizations, and --client-events events are seeded among them.

// clientsResult is what the clients target's seeding and first reads
// measured.
type clientsResult struct {
	Clients       int     `json:"clients"`
	CreateSeconds float64 `json:"create_seconds"` // POST /api/clients, one after another
	Events        int     `json:"events"`         // among the clients
	SeedSeconds   float64 `json:"seed_seconds"`
	EventsPerSec  float64 `json:"events_per_sec"`
	Retries503    int     `json:"retries_503,omitempty"`
	// Until the server was quiet after the last POST.
	BackgroundSecondsAfter float64 `json:"background_seconds_after"`

	// The first GET /api/clients after the last restart computes every
	// client's score; the second finds them kept.
	ColdFirstReadMS      float64 `json:"cold_first_read_ms"`
	ColdFirstReadCPUSecs float64 `json:"cold_first_read_server_cpu_seconds"`
	ColdIdleBefore       float64 `json:"cold_first_read_idle_before"`
	WarmReadMS           float64 `json:"second_read_ms"`

	// What the fleet view said once warm, over every page.
	Listed              int `json:"listed"`           // the list's total
	WithOpenAlerts      int `json:"with_open_alerts"` // clients with an open alert
	OpenAlerts          int `json:"open_alerts"`
	OpenCriticalClients int `json:"with_open_critical"`
	Silent              int `json:"silent"`
}

// clientShares splits n events over k clients as evenly as whole events
// go: the first n%k clients take one more.
func clientShares(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// produceClients makes every client's events in batches of at most
// batchSize, each client its own feed over the last 30 days (so each has
// recent events, as a fleet of working sensors does), sent in rounds:
// every client's first batch, then every client's second, and so on.
func produceClients(ctx context.Context, ids []string, n int, now time.Time, report func(done int)) <-chan batch {
	shares := clientShares(n, len(ids))
	gens := make([]*generator, len(ids))
	for i := range ids {
		// Spread over its batches, the last one short: a slice each.
		batches := (shares[i] + batchSize - 1) / batchSize
		gens[i] = newGenerator(uint64(1000+i), now, batches*batchSize)
	}
	ch := make(chan batch, 4)
	go func() {
		defer close(ch)
		left := slices.Clone(shares)
		for done, more := 0, true; more; {
			more = false
			for i, id := range ids {
				k := min(left[i], batchSize)
				if k == 0 {
					continue
				}
				select {
				case ch <- batch{body: gens[i].appendBatch(make([]byte, 0, k*280), k), org: id}:
				case <-ctx.Done():
					return
				}
				left[i] -= k
				done += k
				report(done)
				more = more || left[i] > 0
			}
		}
	}()
	return ch
}

// seedClients makes the suite's organization a provider of o.clients
// clients (its admin's session, POST /api/clients) and seeds
// o.clientEvents events among them through POST /api/events with the write
// key and X-Garrison-Org, 2 senders, as a provider's collector would.
func seedClients(ctx context.Context, o options, g *garrison, smp *sampler, creds credentials, res *results) error {
	cr := &clientsResult{Clients: o.clients, Events: o.clientEvents}
	res.Clients = cr
	res.Config.Clients, res.Config.ClientEvents = o.clients, o.clientEvents
	fmt.Printf("creating %d clients …\n", o.clients)
	began := time.Now()
	ids := make([]string, 0, o.clients)
	for i := range o.clients {
		var c struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		err := call(ctx, g.cl, http.MethodPost, g.base()+"/api/clients", creds.JWT,
			map[string]string{"name": fmt.Sprintf("Client %03d", i+1)}, http.StatusCreated, &c)
		if err != nil {
			return fmt.Errorf("create client %d: %w", i+1, err)
		}
		if c.Data.ID == "" {
			return fmt.Errorf("POST /api/clients answered no data.id")
		}
		ids = append(ids, c.Data.ID)
	}
	cr.CreateSeconds = time.Since(began).Seconds()
	fmt.Printf("created %d clients in %.1f s\n", o.clients, cr.CreateSeconds)

	fmt.Printf("seeding %d events among the %d clients with 2 senders …\n", o.clientEvents, o.clients)
	settle(ctx, g.proc.pid(), 5*time.Minute)
	smp.watch(g.proc.pid(), "ingest, clients")
	began = time.Now()
	retries, _, err := sendAll(ctx, g.cl, g.base()+"/api/events", creds.WriteKey,
		produceClients(ctx, ids, o.clientEvents, time.Now(), progress(began, o.clientEvents)), 2)
	if err != nil {
		return fmt.Errorf("seeding the clients: %w", err)
	}
	cr.SeedSeconds = time.Since(began).Seconds()
	cr.EventsPerSec = float64(o.clientEvents) / cr.SeedSeconds
	cr.Retries503 = retries
	fmt.Printf("seeded %d events among %d clients in %.1f s (%.0f events/s)\n", o.clientEvents, o.clients, cr.SeedSeconds, cr.EventsPerSec)
	done := time.Now()
	smp.watch(g.proc.pid(), "idle, clients seeded")
	busyUntil, err := settle(ctx, g.proc.pid(), 10*time.Minute)
	if err != nil {
		res.Notes = append(res.Notes, "after seeding the clients the server "+err.Error())
	}
	cr.BackgroundSecondsAfter = max(0, busyUntil.Sub(done).Seconds())
	return ctx.Err()
}

// clientsFirstReads times the first GET /api/clients after the server's
// last restart, which computes every client's score, and the second,
// which finds them kept; then it reads every page once to record what the
// fleet view holds. The load that follows starts warm.
func clientsFirstReads(ctx context.Context, g *garrison, creds credentials, cr *clientsResult) error {
	cr.ColdIdleBefore = waitIdle(ctx, 20*time.Second)
	read := func(query string, out any) (time.Duration, error) {
		began := time.Now()
		err := call(ctx, g.cl, http.MethodGet, g.base()+"/api/clients"+query, creds.ReadKey, nil, http.StatusOK, out)
		return time.Since(began), err
	}
	u0, s0, _ := procCPU(g.proc.pid())
	d, err := read("", nil)
	if err != nil {
		return fmt.Errorf("the first read of the clients: %w", err)
	}
	u1, s1, _ := procCPU(g.proc.pid())
	cr.ColdFirstReadMS = ms(d)
	cr.ColdFirstReadCPUSecs = float64(u1+s1-u0-s0) / ticksPerSecond
	if d, err = read("", nil); err != nil {
		return fmt.Errorf("the second read of the clients: %w", err)
	}
	cr.WarmReadMS = ms(d)
	for offset := 0; ; {
		var page struct {
			Data []struct {
				OpenAlerts      map[string]int `json:"open_alerts"`
				OpenAlertsTotal int            `json:"open_alerts_total"`
				Silent          bool           `json:"silent"`
			} `json:"data"`
			Pagination struct {
				Total      int  `json:"total"`
				NextOffset *int `json:"next_offset"`
			} `json:"pagination"`
		}
		if _, err := read(fmt.Sprintf("?limit=200&offset=%d", offset), &page); err != nil {
			return err
		}
		cr.Listed = page.Pagination.Total
		for _, row := range page.Data {
			if row.OpenAlertsTotal > 0 {
				cr.WithOpenAlerts++
			}
			if row.OpenAlerts["critical"] > 0 {
				cr.OpenCriticalClients++
			}
			cr.OpenAlerts += row.OpenAlertsTotal
			if row.Silent {
				cr.Silent++
			}
		}
		if page.Pagination.NextOffset == nil || *page.Pagination.NextOffset <= offset {
			break
		}
		offset = *page.Pagination.NextOffset
	}
	fmt.Printf("clients: first read %.0f ms (server CPU %.2f s), second %.0f ms; %d listed, %d with open alerts (%d alerts, %d with a critical), %d silent\n",
		cr.ColdFirstReadMS, cr.ColdFirstReadCPUSecs, cr.WarmReadMS, cr.Listed, cr.WithOpenAlerts, cr.OpenAlerts, cr.OpenCriticalClients, cr.Silent)
	return nil
}

// ownEvents writes to dst a database holding only org's events, in the
// columns the PocketBase baseline imports, so that baseline holds the
// events the events target and the limit server read, not the clients'.
func ownEvents(ctx context.Context, src, dst, org string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: dst}).EscapedPath())
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // ATTACH is per connection
	if _, err := db.ExecContext(ctx, `ATTACH DATABASE ? AS g`, "file:"+src+"?mode=ro"); err != nil {
		return fmt.Errorf("attach %s: %w", src, err)
	}
	_, err = db.ExecContext(ctx, `CREATE TABLE events AS SELECT seq, org_id, type, severity, ts, source, asset, message, indicator, details
		FROM g.events WHERE org_id = ? ORDER BY seq`, org)
	return err
}
