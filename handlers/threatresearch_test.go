package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestThreatResearcherNeverMisleads: the researcher finds an address held
// only in an event's details; calls an internal address the organization's
// own, to investigate rather than block; and says of an indicator it has
// not seen that it was not seen and that nothing is known of it, never
// that no action is needed.
func TestThreatResearcherNeverMisleads(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	now := e.Clock.Now()
	at := now.Add(-30 * time.Minute).Format(time.RFC3339)
	e.ingest(key,
		// The peer is in the details only: not the asset, indicator or message.
		map[string]any{"type": "blocked_connection", "severity": "medium", "timestamp": at, "source": "firewall", "asset": "ws-07",
			"message": "Outbound connection blocked", "details": map[string]any{"src_ip": "10.0.0.5", "dest_ip": "198.51.100.77", "dest_port": 4444}},
		map[string]any{"type": "threat_detected", "severity": "high", "timestamp": at, "source": "suricata", "asset": "10.0.0.5",
			"message": "ET POLICY Possible outbound SSH", "indicator": "ssh"},
	).Must(t, http.StatusCreated)

	t.Run("an address only in an event's details", func(t *testing.T) {
		out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "198.51.100.77"}).Get("output")
		if out.Get("events", "count").MustInt(t) != 1 || out.Get("events", "recent", "0", "asset").Str() != "ws-07" || !out.Get("internal").Is(false) {
			t.Fatalf("research of an address in the details: %v", out)
		}
		if recs := strings.Join(out.Get("recommendations").Strings(), " "); !strings.Contains(recs, "Block 198.51.100.77 at the perimeter") {
			t.Fatalf("an outside address with activity: %v", recs)
		}
	})
	t.Run("an internal address: investigate the host, not block it", func(t *testing.T) {
		run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "10.0.0.5"})
		out := run.Get("output")
		recs := strings.Join(out.Get("recommendations").Strings(), " ")
		if out.Get("events", "count").MustInt(t) != 2 || !out.Get("internal").Is(true) || out.Get("internal_reason").Str() != "a private address (RFC 1918)" ||
			strings.Contains(recs, "Block") || !strings.Contains(recs, "10.0.0.5 is a private address (RFC 1918): one of the organization's own hosts or networks, "+
			"not an outside threat to block. Investigate the host instead") {
			t.Fatalf("research of an internal address: %v", out)
		}
		if s := run.Get("output_summary").Str(); !strings.Contains(s, "10.0.0.5 is a private address (RFC 1918): the organization's own, not an outside party.") {
			t.Fatalf("summary: %s", s)
		}
	})
	t.Run("an address nothing was seen of", func(t *testing.T) {
		run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "185.220.101.4"})
		want := "Not seen in this organization's data; no intelligence held on 185.220.101.4. That does not make it safe: " +
			"re-run this research if it appears in new reports."
		if recs := run.Get("output", "recommendations").Strings(); len(recs) != 1 || recs[0] != want {
			t.Fatalf("recommendations: %q", recs)
		}
		if s := run.Get("output_summary").Str(); !strings.HasSuffix(s, want) || strings.Contains(s, "no action is needed") {
			t.Fatalf("summary: %s", s)
		}
	})
}
