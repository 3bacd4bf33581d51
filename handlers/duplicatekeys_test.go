package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestIngestRefusesDuplicateKeys: on every ingest path a key given twice
// is refused by name and nothing is stored (the last used to win, so
// severity low-then-critical was stored critical).
func TestIngestRefusesDuplicateKeys(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	at := e.Clock.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05Z")
	event := func(extra string) string {
		return `{"type":"threat_detected","severity":"low",` + extra + `"timestamp":"` + at + `","source":"ids","asset":"ws-01","message":"m"}`
	}
	eve := `{"timestamp":"` + e.Clock.Now().UTC().Format("2006-01-02T15:04:05.000000+0000") + `","event_type":"alert","src_ip":"203.0.113.9",` +
		`"dest_ip":"10.0.0.5","alert":{"signature":"ET SCAN","signature":"ET MALWARE","category":"x","severity":2}}`
	for _, tc := range []struct {
		name, path, contentType, body, field string
	}{
		{"one event", "/api/events", "application/json", event(`"severity":"critical",`), "severity"},
		{"a batch", "/api/events", "application/json", `{"events":[` + event("") + `,` + event(`"asset":"ws-02",`) + `]}`, "events[1].asset"},
		{"the events key twice", "/api/events", "application/json", `{"events":[` + event("") + `],"events":[]}`, "events"},
		{"inside details", "/api/events", "application/json", event(`"details":{"user":"ann","user":"root"},`), "details.user"},
		{"the native webhook", "/api/webhooks/native", "application/json", `{"events":[` + event(`"message":"n",`) + `]}`, "events[0].message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.DoHeaders("POST", tc.path, tc.body, map[string]string{"Authorization": "Bearer " + key, "Content-Type": tc.contentType})
			r.WantFields(t, tc.field)
			if !strings.Contains(r.Str("error"), "given twice") {
				t.Fatalf("message: %s", r.Raw)
			}
		})
	}
	r := e.DoHeaders("POST", "/api/webhooks/suricata", eve+"\n", map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/x-ndjson"})
	r.Must(t, http.StatusBadRequest)
	if !strings.Contains(r.Str("error"), `"alert.signature" is given twice`) || !strings.Contains(r.Str("error"), "line 1") {
		t.Fatalf("EVE: %s", r.Raw)
	}
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").Float(); n != 0 {
		t.Fatalf("%v events stored from refused bodies", n)
	}
}
