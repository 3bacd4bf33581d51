package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

func ev(e *env, typ, sev, asset, msg string, at time.Time) map[string]any {
	return map[string]any{"type": typ, "severity": sev, "timestamp": at.Format(time.RFC3339Nano), "source": "edr",
		"asset": asset, "message": msg}
}

func (e *env) ingest(cred string, events ...map[string]any) apitest.Response {
	e.T.Helper()
	return e.Do("POST", "/api/events", cred, map[string]any{"events": events})
}

func TestIngestValidation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	now := e.Clock.Now()
	good := func(edit func(map[string]any)) map[string]any {
		m := ev(e, "threat_detected", "low", "ws-01.acme.local", "x", now)
		edit(m)
		return m
	}
	tests := []struct {
		name   string
		body   any
		fields []string
	}{
		{"unknown type", good(func(m map[string]any) { m["type"] = "virus" }), []string{"type"}},
		{"unknown severity", good(func(m map[string]any) { m["severity"] = "urgent" }), []string{"severity"}},
		{"bad timestamp", good(func(m map[string]any) { m["timestamp"] = "yesterday" }), []string{"timestamp"}},
		{"far future", good(func(m map[string]any) { m["timestamp"] = now.Add(48 * time.Hour).Format(time.RFC3339) }), []string{"timestamp"}},
		{"bad asset", good(func(m map[string]any) { m["asset"] = "not a host!" }), []string{"asset"}},
		{"missing fields", map[string]any{}, []string{"type", "severity", "timestamp", "source", "asset", "message"}},
		{"details not an object", good(func(m map[string]any) { m["details"] = []int{1} }), []string{"details"}},
		{"unknown field", good(func(m map[string]any) { m["org_id"] = "x" }), []string{"org_id"}},
		{"batch: bad second event", map[string]any{"events": []any{good(func(map[string]any) {}),
			good(func(m map[string]any) { m["severity"] = "x" })}}, []string{"events[1].severity"}},
		{"batch: unknown nested field", map[string]any{"events": []any{good(func(m map[string]any) { m["Severity"] = "low" })}}, []string{"events[0].Severity"}},
		{"batch: empty", map[string]any{"events": []any{}}, []string{"events"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/events", key, tc.body).WantFields(t, tc.fields...)
		})
	}
	small := fmt.Sprintf(`{"type":"policy_violation","severity":"info","timestamp":%q,"source":"s","asset":"h","message":"m"}`,
		now.Format(time.RFC3339))
	t.Run("oversize batch", func(t *testing.T) {
		body := `{"events":[` + strings.Repeat(small+",", 10_000) + small + `]}`
		e.Do("POST", "/api/events", key, body).WantFields(t, "events")
	})
	t.Run("nothing stored by any refusal", func(t *testing.T) {
		if total := e.Do("GET", "/api/events", key, nil).Get("pagination", "total"); !total.Is(0) {
			t.Fatalf("total %v", total)
		}
	})
	t.Run("a full batch of 10,000", func(t *testing.T) {
		body := `{"events":[` + strings.Repeat(small+",", 9_999) + small + `]}`
		if r := e.Do("POST", "/api/events", key, body).Must(t, http.StatusCreated); r.Data()["count"] != float64(10_000) {
			t.Fatalf("count %v", r.Data()["count"])
		}
	})
}

func TestToCoversItsWholeSecond(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	at := e.Clock.Now().Add(-time.Hour).Add(750 * time.Millisecond)
	e.ingest(admin.Token, ev(e, "policy_violation", "info", "h", "m", at)).Must(t, http.StatusCreated)
	shown := e.Do("GET", "/api/events", admin.Token, nil).Get("data", "0", "timestamp").MustStr(t)
	r := e.Do("GET", "/api/events?from="+shown+"&to="+shown, admin.Token, nil).Must(t, http.StatusOK)
	if total := r.Get("pagination", "total"); total.Float() != 1 || len(r.List()) != 1 {
		t.Fatalf("from=to=%s found %v", shown, total)
	}
}

func TestIngestAndList(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	base := e.Clock.Now().Add(-10 * time.Hour).Truncate(time.Hour)
	var batch []map[string]any
	sevs := []string{"info", "low", "medium", "high", "critical"}
	types := []string{"threat_detected", "blocked_connection", "dns_anomaly", "policy_violation"}
	for i := range 200 {
		at := base.Add(time.Duration(i) * 3 * time.Minute) // ten hours, three minutes apart
		m := ev(e, types[i%4], sevs[i%5], fmt.Sprintf("host-%d", i%7), fmt.Sprintf("event %d", i), at)
		if i == 0 {
			m["indicator"] = "evil.example"
			m["details"] = map[string]any{"rule": 7}
		}
		batch = append(batch, m)
	}
	r := e.ingest(key, batch...).Must(t, http.StatusCreated)
	if r.Data()["count"] != float64(200) || len(r.Get("data", "ids").List()) != 200 {
		t.Fatalf("ingest answer: %s", r.Raw)
	}
	single := e.Do("POST", "/api/events", key, ev(e, "policy_violation", "info", "10.0.0.5", "usb stick", base)).Must(t, http.StatusCreated)
	if single.Data()["count"] != float64(1) {
		t.Fatalf("single: %s", single.Raw)
	}

	// brute is what a filter must return, computed from what was sent.
	all := append(batch, ev(e, "policy_violation", "info", "10.0.0.5", "usb stick", base))
	brute := func(keep func(m map[string]any, at time.Time) bool) int {
		n := 0
		for _, m := range all {
			at, _ := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
			if keep(m, at) {
				n++
			}
		}
		return n
	}
	from, to := base.Add(95*time.Minute+30*time.Second), base.Add(7*time.Hour+13*time.Minute)
	tests := []struct {
		query string
		keep  func(m map[string]any, at time.Time) bool
	}{
		{"", func(map[string]any, time.Time) bool { return true }},
		{"severity=high,critical", func(m map[string]any, _ time.Time) bool {
			return m["severity"] == "high" || m["severity"] == "critical"
		}},
		{"type=dns_anomaly", func(m map[string]any, _ time.Time) bool { return m["type"] == "dns_anomaly" }},
		// A value named twice counts once: every event once, total and page alike.
		{"severity=high,critical,high", func(m map[string]any, _ time.Time) bool {
			return m["severity"] == "high" || m["severity"] == "critical"
		}},
		{"type=dns_anomaly,dns_anomaly", func(m map[string]any, _ time.Time) bool { return m["type"] == "dns_anomaly" }},
		{"from=" + from.Format(time.RFC3339), func(_ map[string]any, at time.Time) bool { return !at.Before(from) }},
		{"to=" + to.Format(time.RFC3339), func(_ map[string]any, at time.Time) bool { return !at.After(to) }},
		{"from=" + from.Format(time.RFC3339) + "&to=" + to.Format(time.RFC3339) + "&severity=low&type=blocked_connection,threat_detected",
			func(m map[string]any, at time.Time) bool {
				return !at.Before(from) && !at.After(to) && m["severity"] == "low" && (m["type"] == "blocked_connection" || m["type"] == "threat_detected")
			}},
		{"from=" + base.Add(time.Hour).Format(time.RFC3339) + "&to=" + base.Add(time.Hour).Format(time.RFC3339),
			func(_ map[string]any, at time.Time) bool { return at.Equal(base.Add(time.Hour)) }},
	}
	for _, path := range []string{"/api/events", "/api/dashboard/events"} {
		for _, tc := range tests {
			t.Run(path+"?"+tc.query, func(t *testing.T) {
				r := e.Do("GET", path+"?limit=200&"+tc.query, admin.Token, nil).Must(t, http.StatusOK)
				want := brute(tc.keep)
				if total := r.Get("pagination", "total"); !total.Is(want) {
					t.Fatalf("total %v, want %d", total, want)
				}
				if len(r.List()) != min(want, 200) {
					t.Fatalf("%d items, want %d", len(r.List()), min(want, 200))
				}
			})
		}
	}
	t.Run("newest first by default; order and sort", func(t *testing.T) {
		items := e.Do("GET", "/api/events?limit=3", key, nil).Get("data").List()
		first, second := items[0].Get("timestamp").MustStr(t), items[1].Get("timestamp").MustStr(t)
		if first < second {
			t.Fatalf("not newest first: %s then %s", first, second)
		}
		asc := e.Do("GET", "/api/events?limit=1&order=asc", key, nil).Get("data", "0")
		if asc.Get("timestamp").Str() != base.Format(time.RFC3339) {
			t.Fatalf("oldest: %v", asc)
		}
		rank := map[string]int{"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
		for _, order := range []string{"desc", "asc"} {
			page := e.Do("GET", "/api/events?limit=200&sort=severity&order="+order, key, nil).Get("data").List()
			for i := 1; i < len(page); i++ {
				a, b := page[i-1], page[i]
				ra, rb := rank[a.Get("severity").MustStr(t)], rank[b.Get("severity").MustStr(t)]
				if order == "desc" && (ra < rb || ra == rb && a.Get("timestamp").MustStr(t) < b.Get("timestamp").MustStr(t)) ||
					order == "asc" && (ra > rb || ra == rb && a.Get("timestamp").MustStr(t) > b.Get("timestamp").MustStr(t)) {
					t.Fatalf("sort=severity&order=%s out of order at %d: %v then %v", order, i, a, b)
				}
			}
		}
		oldest := e.Do("GET", "/api/events?limit=1&order=asc&sort=timestamp", key, nil).Get("data", "0")
		if oldest.Get("indicator").Str() != "evil.example" && oldest.Get("message").Str() != "usb stick" {
			t.Fatalf("oldest event: %v", oldest)
		}
	})
	t.Run("bad filters", func(t *testing.T) {
		for q, field := range map[string]string{
			"severity=urgent": "severity", "type=virus": "type", "from=monday": "from", "to=x": "to",
			"sort=asset": "sort", "order=up": "order", "limit=-1": "limit",
			"from=" + to.Format(time.RFC3339) + "&to=" + from.Format(time.RFC3339): "from",
		} {
			e.Do("GET", "/api/events?"+q, key, nil).WantFields(t, field)
		}
	})
	t.Run("another organization sees nothing", func(t *testing.T) {
		other := e.Register("olga@other.test", "Other")
		if total := e.Do("GET", "/api/events", other.Token, nil).Get("pagination", "total"); !total.Is(0) {
			t.Fatalf("other org total %v", total)
		}
	})
}
