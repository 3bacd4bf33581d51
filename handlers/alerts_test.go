package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

func (e *env) alerts(cred, query string) []apitest.JSON {
	e.T.Helper()
	var out []apitest.JSON
	for _, a := range e.Do("GET", "/api/alerts?"+query, cred, nil).Must(e.T, http.StatusOK).Get("data").List() {
		out = append(out, a.MustObject(e.T))
	}
	return out
}

func TestAlertRules(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	now := e.Clock.Now()

	trojan := ev(e, "threat_detected", "critical", "ws-07", "ET MALWARE Win32/Emotet CnC Activity", now)
	trojan["indicator"] = "ET MALWARE Win32/Emotet CnC Activity"
	e.ingest(key, trojan, ev(e, "threat_detected", "low", "ws-07", "noise", now)).Must(t, http.StatusCreated)
	got := e.alerts(key, "")
	if len(got) != 1 {
		t.Fatalf("%d alerts, want 1 (only the critical event): %v", len(got), got)
	}
	a := got[0]
	if a.Get("severity").Str() != "critical" || a.Get("category").Str() != "malware" || a.Get("affected_asset").Str() != "ws-07" || a.Get("status").Str() != "open" ||
		a.Get("event_count").Float() != 1 || !strings.Contains(a.Get("recommended_action").Str(), "Isolate ws-07") {
		t.Fatalf("alert: %v", a)
	}

	t.Run("repeats join the open alert", func(t *testing.T) {
		later := e.Clock.Now().Add(5 * time.Minute)
		again := ev(e, "threat_detected", "high", "ws-07", "ET MALWARE Win32/Emotet CnC Activity", later)
		again["indicator"] = trojan["indicator"]
		e.ingest(key, again).Must(t, http.StatusCreated)
		got := e.alerts(key, "")
		if len(got) != 1 || got[0].Get("event_count").Float() != 2 || got[0].Get("last_seen").Str() != later.Format(time.RFC3339) ||
			got[0].Get("first_seen").Str() != now.Format(time.RFC3339) || got[0].Get("severity").Str() != "critical" {
			t.Fatalf("after a repeat: %v", got)
		}
	})

	t.Run("detail lists the events behind it", func(t *testing.T) {
		d := e.Do("GET", "/api/alerts/"+a.Get("id").MustStr(t), key, nil).Must(t, http.StatusOK).Get("data")
		if evs := d.Get("events").List(); len(evs) != 2 || !evs[0].MustObject(t).Get("alert_id").Equal(a.Get("id")) {
			t.Fatalf("events: %v", d.Get("events"))
		}
	})

	t.Run("categories and actions per kind", func(t *testing.T) {
		for _, tc := range []struct{ typ, msg, category, action string }{
			{"threat_detected", "ET SCAN Nmap Scripting Engine", "reconnaissance", "scanning"},
			{"threat_detected", "ET EXPLOIT Apache Struts RCE", "intrusion_attempt", "patch"},
			{"blocked_connection", "Dropped TCP 203.0.113.9:4444", "blocked_traffic", "blocked"},
			{"dns_anomaly", "DNS tunnelling suspected", "dns_anomaly", "DNS"},
			{"policy_violation", "Admin login outside hours", "policy_violation", "policy"},
		} {
			e.ingest(key, ev(e, tc.typ, "high", "srv-"+tc.category, tc.msg, now)).Must(t, http.StatusCreated)
			var found apitest.JSON
			for _, al := range e.alerts(key, "limit=200") {
				if al.Get("affected_asset").Str() == "srv-"+tc.category {
					found = al
				}
			}
			if found.IsNull() || found.Get("category").Str() != tc.category || !strings.Contains(found.Get("recommended_action").Str(), tc.action) {
				t.Errorf("%s: %v", tc.msg, found)
			}
		}
	})
}

func TestBurstAlerts(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	window := e.Clock.Now().Truncate(10 * time.Minute)
	burst := func(asset string, n int, offset time.Duration) []map[string]any {
		var out []map[string]any
		for i := range n {
			out = append(out, ev(e, "blocked_connection", "low", asset, "blocked", window.Add(offset+time.Duration(i)*time.Second)))
		}
		return out
	}
	e.ingest(key, burst("quiet", 9, 0)...).Must(t, http.StatusCreated)
	if got := e.alerts(key, ""); len(got) != 0 {
		t.Fatalf("nine events raised %v", got)
	}
	// Six now and four later: the window crosses ten in the second batch, and
	// the burst alert takes in the earlier events too.
	e.ingest(key, burst("noisy", 6, 3*time.Minute)...).Must(t, http.StatusCreated)
	e.ingest(key, burst("noisy", 4, 4*time.Minute)...).Must(t, http.StatusCreated)
	got := e.alerts(key, "")
	if len(got) != 1 || got[0].Get("category").Str() != "activity_burst" || got[0].Get("affected_asset").Str() != "noisy" ||
		got[0].Get("event_count").Float() != 10 || got[0].Get("severity").Str() != "medium" ||
		got[0].Get("first_seen").Str() != window.Add(3*time.Minute).Format(time.RFC3339) {
		t.Fatalf("burst: %v", got)
	}
	d := e.Do("GET", "/api/alerts/"+got[0].Get("id").MustStr(t), key, nil).Get("data")
	if len(d.Get("events").List()) != 10 {
		t.Fatalf("burst links %d events, want 10", len(d.Get("events").List()))
	}
	// The events feed shows the burst on each of them, the earlier six too.
	noisyAlerts := func() map[any]int {
		seen := map[any]int{}
		for _, ev := range e.Do("GET", "/api/events?limit=100", key, nil).Must(t, http.StatusOK).Get("data").List() {
			if ev := ev.MustObject(t); ev.Get("asset").Str() == "noisy" {
				seen[ev.Get("alert_id").Any()]++
			}
		}
		return seen
	}
	if seen := noisyAlerts(); seen[got[0].Get("id").Any()] != 10 || len(seen) != 1 {
		t.Fatalf("events feed: %v", seen)
	}
	// Events in the next window start a new count, but join the open burst alert once over the threshold.
	e.ingest(key, burst("noisy", 10, 10*time.Minute)...).Must(t, http.StatusCreated)
	if got := e.alerts(key, ""); len(got) != 1 || got[0].Get("event_count").Float() != 20 {
		t.Fatalf("second window: %v", got)
	}
	// Once resolved, a straggler in a window past the threshold raises nothing.
	e.Do("PATCH", "/api/alerts/"+got[0].Get("id").MustStr(t), key, map[string]string{"status": "resolved", "disposition": "benign"}).Must(t, http.StatusOK)
	e.ingest(key, burst("noisy", 1, 15*time.Minute)...).Must(t, http.StatusCreated)
	if open := e.alerts(key, "status=open"); len(open) != 0 {
		t.Fatalf("a straggler raised %v", open)
	}
	if seen := noisyAlerts(); seen[got[0].Get("id").Any()] != 20 || seen[nil] != 1 {
		t.Fatalf("the straggler belongs to no alert: %v", seen)
	}
	// Ten in one batch cross at once.
	e.ingest(key, burst("loud", 10, 20*time.Minute)...).Must(t, http.StatusCreated)
	if open := e.alerts(key, "status=open"); len(open) != 1 || open[0].Get("event_count").Float() != 10 {
		t.Fatalf("one-batch burst: %v", open)
	}
}

func TestAlertStatusChanges(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	reader := e.APIKey(admin, "read")
	high := ev(e, "threat_detected", "high", "db-01", "SQL injection attempt", e.Clock.Now())
	e.ingest(key, high).Must(t, http.StatusCreated)
	id := e.alerts(key, "")[0].Get("id").MustStr(t)

	e.Do("PATCH", "/api/alerts/"+id, reader, map[string]string{"status": "resolved"}).
		WantError(t, http.StatusForbidden, "forbidden", "Insufficient permissions. Required scope: write")
	e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]string{"status": "closed"}).WantFields(t, "status")
	e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"status": "resolved", "disposition": "true_positive", "note": 5}).WantFields(t, "note")
	// A resolution says whether the alert was real.
	e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"status": "resolved", "note": "done"}).WantFields(t, "disposition")

	e.Clock.Advance(time.Hour)
	r := e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]string{"status": "resolved", "disposition": "true_positive",
		"note": "WAF rule added"}).Must(t, http.StatusOK)
	if r.Str("data", "status") != "resolved" || r.Str("data", "resolved_by") != admin.ID ||
		r.Str("data", "resolved_at") != e.Clock.Now().Format(time.RFC3339) || r.Str("data", "note") != "WAF rule added" {
		t.Fatalf("resolve: %s", r.Raw)
	}
	if open, resolved := e.alerts(key, "status=open"), e.alerts(key, "status=resolved"); len(open) != 0 || len(resolved) != 1 {
		t.Fatalf("filters: open %d resolved %d", len(open), len(resolved))
	}
	e.Do("GET", "/api/alerts?status=closed", key, nil).WantFields(t, "status")

	// The same threat again opens a fresh alert; the resolved one cannot be
	// reopened beside it.
	e.ingest(key, high).Must(t, http.StatusCreated)
	if len(e.alerts(key, "status=open")) != 1 {
		t.Fatal("a repeat after resolution opened no new alert")
	}
	e.Do("PATCH", "/api/alerts/"+id, key, map[string]string{"status": "open"}).WantError(t, http.StatusConflict, "conflict", "")

	d := e.Do("GET", "/api/alerts/"+id, key, nil).Get("data")
	h := d.Get("history").List()
	if len(h) != 1 || h[0].Get("by").Str() != admin.ID || h[0].Get("note").Str() != "WAF rule added" {
		t.Fatalf("history: %v", h)
	}

	t.Run("another organization's alert is not found", func(t *testing.T) {
		other := e.Register("olga@other.test", "Other")
		missing := e.Do("GET", "/api/alerts/alr_nothing", other.Token, nil)
		foreign := e.Do("GET", "/api/alerts/"+id, other.Token, nil)
		foreign.WantError(t, http.StatusNotFound, "not_found", "Resource not found")
		if string(missing.Raw) != string(foreign.Raw) {
			t.Fatal("foreign alert answers differently from a missing one")
		}
		e.Do("PATCH", "/api/alerts/"+id, other.Token, map[string]string{"status": "open"}).WantError(t, http.StatusNotFound, "not_found", "")
	})
	t.Run("severity filter", func(t *testing.T) {
		if got := e.alerts(key, "severity=critical"); len(got) != 0 {
			t.Fatalf("%v", got)
		}
		if got := e.alerts(key, "severity=high,critical"); len(got) != 2 {
			t.Fatalf("%d", len(got))
		}
	})
}

func TestAlertPagination(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	var batch []map[string]any
	for i := range 5 {
		batch = append(batch, ev(e, "threat_detected", "high", fmt.Sprintf("host-%d", i), "exploit attempt", e.Clock.Now().Add(time.Duration(i)*time.Minute)))
	}
	e.ingest(admin.Token, batch...).Must(t, http.StatusCreated)
	var seen []string
	for offset := 0; offset < 5; offset += 2 {
		r := e.Do("GET", fmt.Sprintf("/api/alerts?limit=2&offset=%d", offset), admin.Token, nil).Must(t, http.StatusOK)
		p := r.Get("pagination")
		if p.Get("total").Float() != 5 {
			t.Fatalf("total %v", p.Get("total"))
		}
		for _, a := range r.Get("data").List() {
			seen = append(seen, a.Get("affected_asset").MustStr(t))
		}
	}
	// Most recently active first, each exactly once.
	if strings.Join(seen, ",") != "host-4,host-3,host-2,host-1,host-0" {
		t.Fatalf("pages: %v", seen)
	}
	e.Do("GET", "/api/alerts?limit=x", admin.Token, nil).WantFields(t, "limit")
}
