package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// seedDashboard ingests a known mix: today, yesterday and three days ago.
func seedDashboard(t testing.TB, e *env, key string) {
	now := e.Clock.Now()
	var batch []map[string]any
	add := func(n int, typ, sev, asset, msg string, at time.Time) {
		for i := range n {
			m := ev(e, typ, sev, asset, msg, at.Add(time.Duration(i)*time.Second))
			m["indicator"] = msg
			batch = append(batch, m)
		}
	}
	add(3, "blocked_connection", "low", "fw-01", "203.0.113.7", now.Add(-time.Hour))
	add(1, "threat_detected", "critical", "ws-07", "ET MALWARE Emotet CnC", now.Add(-2*time.Hour))
	add(2, "threat_detected", "high", "db-01", "SQL injection", now.Add(-26*time.Hour))
	add(4, "policy_violation", "info", "ws-02", "USB storage", now.Add(-72*time.Hour))
	e.ingest(key, batch...).Must(t, http.StatusCreated)
}

func TestDashboard(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	seedDashboard(t, e, key)

	t.Run("stats", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/stats", key, nil).Must(t, http.StatusOK).Data()
		if d["threats_blocked_today"] != float64(3) || d["open_alerts"] != float64(2) || d["agents_active"] != float64(0) ||
			d["compliance_gaps"] != float64(0) {
			t.Fatalf("stats: %v", d)
		}
	})
	t.Run("security score explains every input", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/security-score", key, nil).Must(t, http.StatusOK).Get("data")
		subs := d.Get("sub_scores")
		th := subs.Get("threats")
		// One open critical (25) and one open high (10); three high/critical events in 7 days (0).
		if th.Get("score").Float() != 65 || len(th.Get("inputs").List()) == 0 {
			t.Fatalf("threats sub-score: %v", th)
		}
		for _, name := range []string{"threats", "vulnerabilities", "compliance", "identity", "network"} {
			if s := subs.Get(name); !s.IsObject() || s.Get("summary").Is("") {
				t.Fatalf("sub-score %s: %v", name, subs.Get(name))
			}
		}
		if !subs.Get("vulnerabilities", "assessed").Is(false) {
			t.Fatal("vulnerabilities assessed without data")
		}
		// identity: the admin's address is unverified (5); network: no DNS telemetry (20).
		id, nw := subs.Get("identity", "score").MustFloat(t), subs.Get("network", "score").MustFloat(t)
		want := int((0.35*65+0.15*id+0.15*nw)/0.65 + 0.5)
		if id != 95 || nw != 80 || !d.Get("score").Is(want) || d.Get("formula").Is("") {
			t.Fatalf("score %v (identity %v, network %v), want %d", d.Get("score"), id, nw, want)
		}
	})
	t.Run("risk timeline", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/risk-timeline?days=5", key, nil).Must(t, http.StatusOK).Get("data")
		points := d.Get("points").List()
		if len(points) != 5 {
			t.Fatalf("%d points", len(points))
		}
		last := points[4]
		if last.Get("date").Str() != e.Clock.Now().Format(time.DateOnly) || last.Get("events").Float() != 4 || last.Get("risk").Float() <= 0 {
			t.Fatalf("today: %v", last)
		}
		if p := points[0]; !p.Get("events").Is(0) || !p.Get("risk").Is(0) {
			t.Fatalf("zero-filled day: %v", p)
		}
		if p := points[1]; p.Get("events").Float() != 4 || p.Get("by_severity", "info").Float() != 4 {
			t.Fatalf("three days ago: %v", p)
		}
		if def := e.Do("GET", "/api/dashboard/risk-timeline", key, nil).Get("data", "points").List(); len(def) != 30 {
			t.Fatalf("default %d points", len(def))
		}
		for _, bad := range []string{"0", "366", "x", "-3"} {
			e.Do("GET", "/api/dashboard/risk-timeline?days="+bad, key, nil).WantFields(t, "days")
		}
	})
	t.Run("overview", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/overview", key, nil).Must(t, http.StatusOK).Get("data")
		ev24 := d.Get("events", "24h")
		if ev24.Get("total").Float() != 4 || d.Get("open_alerts").Float() != 2 || len(d.Get("recent_alerts").List()) != 2 ||
			d.Get("security_score", "score").IsNull() {
			t.Fatalf("overview: %v", d)
		}
	})
	t.Run("daily summary states only facts", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/daily-summary", key, nil).Must(t, http.StatusOK).Get("data")
		s := d.Get("summary").MustStr(t)
		for _, want := range []string{"4 security events were recorded", "1 of them high or critical", "3 connections were blocked",
			"2 alerts were raised and 0 were resolved", "2 high or critical alerts are still open"} {
			if !strings.Contains(s, want) {
				t.Errorf("summary lacks %q: %s", want, s)
			}
		}
	})
	t.Run("threats", func(t *testing.T) {
		r := e.Do("GET", "/api/threats", key, nil).Must(t, http.StatusOK)
		if r.Get("pagination", "total").Float() != 4 {
			t.Fatalf("threats: %s", r.Raw)
		}
		var sql apitest.JSON
		for _, th := range r.Get("data").List() {
			if th.MustObject(t).Get("indicator").Str() == "SQL injection" {
				sql = th
			}
		}
		if sql.IsNull() || sql.Get("count").Float() != 2 || sql.Get("severity").Str() != "high" || sql.Get("affected_assets", "0").Str() != "db-01" {
			t.Fatalf("SQL injection threat: %v", sql)
		}
		s := e.Do("GET", "/api/threats/summary", key, nil).Must(t, http.StatusOK).Get("data")
		w := s.Get("windows")
		if w.Get("24h", "total").Float() != 4 || w.Get("7d", "total").Float() != 10 ||
			w.Get("7d", "by_type", "policy_violation").Float() != 4 {
			t.Fatalf("windows: %v", w)
		}
		if top := s.Get("top_assets_7d", "0"); top.Get("name").Str() != "ws-02" || top.Get("count").Float() != 4 {
			t.Fatalf("top asset: %v", top)
		}
	})
	t.Run("another organization sees an empty dashboard", func(t *testing.T) {
		other := e.Register("olga@other.test", "Other")
		d := e.Do("GET", "/api/dashboard/stats", other.Token, nil).Must(t, http.StatusOK).Data()
		if d["open_alerts"] != float64(0) || d["threats_blocked_today"] != float64(0) {
			t.Fatalf("leak: %v", d)
		}
		if ov := e.Do("GET", "/api/dashboard/overview", other.Token, nil).Get("data"); !ov.Get("open_alerts").Is(0) ||
			len(ov.Get("recent_alerts").MustList(t)) != 0 || !ov.Get("events", "7d", "total").Is(0) {
			t.Fatalf("overview leak: %v", ov)
		}
		if th := e.Do("GET", "/api/threats", other.Token, nil); len(th.List()) != 0 {
			t.Fatalf("threats leak: %s", th.Raw)
		}
		if s := e.Do("GET", "/api/threats/summary", other.Token, nil).Get("data", "windows", "30d"); !s.Get("total").Is(0) {
			t.Fatalf("summary leak: %v", s)
		}
		for _, p := range e.Do("GET", "/api/dashboard/risk-timeline?days=7", other.Token, nil).Get("data", "points").MustList(t) {
			if !p.Get("events").Is(0) {
				t.Fatalf("timeline leak: %v", p)
			}
		}
		if nh := e.Do("GET", "/api/dashboard/network-health", other.Token, nil).Get("data", "protection"); !nh.Get("event_sources_reporting").Is(0) {
			t.Fatalf("network leak: %v", nh)
		}
	})
	t.Run("threats paginate", func(t *testing.T) {
		r := e.Do("GET", "/api/threats?limit=2&offset=1", key, nil).Must(t, http.StatusOK)
		if len(r.List()) != 2 || r.Get("pagination", "next_offset").Float() != 3 {
			t.Fatalf("page: %s", r.Raw)
		}
	})
}
