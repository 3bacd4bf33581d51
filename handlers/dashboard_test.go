package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
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
		d := e.Do("GET", "/api/dashboard/security-score", key, nil).Must(t, http.StatusOK).Data()
		subs := d["sub_scores"].(map[string]any)
		th := subs["threats"].(map[string]any)
		// One open critical (25) and one open high (10); three high/critical events in 7 days (0).
		if th["score"] != float64(65) || len(th["inputs"].([]any)) == 0 {
			t.Fatalf("threats sub-score: %v", th)
		}
		for _, name := range []string{"threats", "vulnerabilities", "compliance", "identity", "network"} {
			s, ok := subs[name].(map[string]any)
			if !ok || s["summary"] == "" {
				t.Fatalf("sub-score %s: %v", name, subs[name])
			}
		}
		if subs["vulnerabilities"].(map[string]any)["assessed"] != false {
			t.Fatal("vulnerabilities assessed without data")
		}
		// identity: the admin's address is unverified (5); network: no DNS telemetry (20).
		id, nw := subs["identity"].(map[string]any)["score"].(float64), subs["network"].(map[string]any)["score"].(float64)
		want := int((0.35*65+0.15*id+0.15*nw)/0.65 + 0.5)
		if id != 95 || nw != 80 || d["score"] != float64(want) || d["formula"] == "" {
			t.Fatalf("score %v (identity %v, network %v), want %d", d["score"], id, nw, want)
		}
	})
	t.Run("risk timeline", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/risk-timeline?days=5", key, nil).Must(t, http.StatusOK).Data()
		points := d["points"].([]any)
		if len(points) != 5 {
			t.Fatalf("%d points", len(points))
		}
		last := points[4].(map[string]any)
		if last["date"] != e.Clock.Now().Format(time.DateOnly) || last["events"] != float64(4) || last["risk"].(float64) <= 0 {
			t.Fatalf("today: %v", last)
		}
		if p := points[0].(map[string]any); p["events"] != float64(0) || p["risk"] != float64(0) {
			t.Fatalf("zero-filled day: %v", p)
		}
		if p := points[1].(map[string]any); p["events"] != float64(4) || p["by_severity"].(map[string]any)["info"] != float64(4) {
			t.Fatalf("three days ago: %v", p)
		}
		if def := e.Do("GET", "/api/dashboard/risk-timeline", key, nil).Data()["points"].([]any); len(def) != 30 {
			t.Fatalf("default %d points", len(def))
		}
		for _, bad := range []string{"0", "366", "x", "-3"} {
			e.Do("GET", "/api/dashboard/risk-timeline?days="+bad, key, nil).WantFields(t, "days")
		}
	})
	t.Run("overview", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/overview", key, nil).Must(t, http.StatusOK).Data()
		ev24 := d["events"].(map[string]any)["24h"].(map[string]any)
		if ev24["total"] != float64(4) || d["open_alerts"] != float64(2) || len(d["recent_alerts"].([]any)) != 2 ||
			d["security_score"].(map[string]any)["score"] == nil {
			t.Fatalf("overview: %v", d)
		}
	})
	t.Run("daily summary states only facts", func(t *testing.T) {
		d := e.Do("GET", "/api/dashboard/daily-summary", key, nil).Must(t, http.StatusOK).Data()
		s := d["summary"].(string)
		for _, want := range []string{"4 security events were recorded", "1 of them high or critical", "3 connections were blocked",
			"2 alerts were raised and 0 were resolved", "2 high or critical alerts are still open"} {
			if !strings.Contains(s, want) {
				t.Errorf("summary lacks %q: %s", want, s)
			}
		}
	})
	t.Run("threats", func(t *testing.T) {
		r := e.Do("GET", "/api/threats", key, nil).Must(t, http.StatusOK)
		if r.Body["pagination"].(map[string]any)["total"] != float64(4) {
			t.Fatalf("threats: %s", r.Raw)
		}
		var sql map[string]any
		for _, th := range r.List() {
			if th.(map[string]any)["indicator"] == "SQL injection" {
				sql = th.(map[string]any)
			}
		}
		if sql == nil || sql["count"] != float64(2) || sql["severity"] != "high" || sql["affected_assets"].([]any)[0] != "db-01" {
			t.Fatalf("SQL injection threat: %v", sql)
		}
		s := e.Do("GET", "/api/threats/summary", key, nil).Must(t, http.StatusOK).Data()
		w := s["windows"].(map[string]any)
		if w["24h"].(map[string]any)["total"] != float64(4) || w["7d"].(map[string]any)["total"] != float64(10) ||
			w["7d"].(map[string]any)["by_type"].(map[string]any)["policy_violation"] != float64(4) {
			t.Fatalf("windows: %v", w)
		}
		if top := s["top_assets_7d"].([]any)[0].(map[string]any); top["name"] != "ws-02" || top["count"] != float64(4) {
			t.Fatalf("top asset: %v", top)
		}
	})
	t.Run("another organization sees an empty dashboard", func(t *testing.T) {
		other := e.Register("olga@other.test", "Other")
		d := e.Do("GET", "/api/dashboard/stats", other.Token, nil).Must(t, http.StatusOK).Data()
		if d["open_alerts"] != float64(0) || d["threats_blocked_today"] != float64(0) {
			t.Fatalf("leak: %v", d)
		}
		if ov := e.Do("GET", "/api/dashboard/overview", other.Token, nil).Data(); ov["open_alerts"] != float64(0) ||
			len(ov["recent_alerts"].([]any)) != 0 || ov["events"].(map[string]any)["7d"].(map[string]any)["total"] != float64(0) {
			t.Fatalf("overview leak: %v", ov)
		}
		if th := e.Do("GET", "/api/threats", other.Token, nil); len(th.List()) != 0 {
			t.Fatalf("threats leak: %s", th.Raw)
		}
		if s := e.Do("GET", "/api/threats/summary", other.Token, nil).Data()["windows"].(map[string]any)["30d"].(map[string]any); s["total"] != float64(0) {
			t.Fatalf("summary leak: %v", s)
		}
		for _, p := range e.Do("GET", "/api/dashboard/risk-timeline?days=7", other.Token, nil).Data()["points"].([]any) {
			if p.(map[string]any)["events"] != float64(0) {
				t.Fatalf("timeline leak: %v", p)
			}
		}
		if nh := e.Do("GET", "/api/dashboard/network-health", other.Token, nil).Data()["protection"].(map[string]any); nh["event_sources_reporting"] != float64(0) {
			t.Fatalf("network leak: %v", nh)
		}
	})
	t.Run("threats paginate", func(t *testing.T) {
		r := e.Do("GET", "/api/threats?limit=2&offset=1", key, nil).Must(t, http.StatusOK)
		if len(r.List()) != 2 || r.Body["pagination"].(map[string]any)["next_offset"] != float64(3) {
			t.Fatalf("page: %s", r.Raw)
		}
	})
}
