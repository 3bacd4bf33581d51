package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The operator sets an organization's own retention: a record older than
// it is refused at ingest with the reason, 0 keeps everything, default
// goes back to the appliance's, and each change is in the audit log.
func TestOrgRetentionCLI(t *testing.T) {
	e := newTestEnv(t)
	ann := e.Register("ann@acme.test", "Acme")
	e.Member(ann, "bob@acme.test", "member")
	key := e.APIKey(ann, "write")
	data := dataDirOf(t, e.app)
	set := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runCLI(t, append([]string{"org", "set-retention", "--data", data}, args...), &out, &out)
		return out.String(), err
	}
	for name, args := range map[string][]string{
		"a member's address": {"--email", "bob@acme.test", "--retention", "30d"},
		"not days":           {"--email", ann.Email, "--retention", "a month"},
		"under a day":        {"--email", ann.Email, "--retention", "2h"},
		"none":               {"--email", ann.Email},
	} {
		if out, err := set(args...); err == nil {
			t.Errorf("%s: accepted (%s)", name, out)
		}
	}
	old := map[string]any{"type": "threat_detected", "severity": "low", "timestamp": e.clock.Now().Add(-40 * 24 * time.Hour).Format(time.RFC3339),
		"source": "edr", "asset": "ws-01", "message": "old"}
	if out, err := set("--email", ann.Email, "--retention", "30d"); err != nil || !strings.Contains(out, "Acme") || !strings.Contains(out, "30 days") {
		t.Fatalf("set-retention: %v (%s)", err, out)
	}
	r := e.Do("POST", "/api/events", key, old)
	r.WantFields(t, "timestamp")
	if !strings.Contains(string(r.Raw), "is older than the 30 days this organization keeps events") {
		t.Fatalf("%s", r.Raw)
	}
	if out, err := set("--email", ann.Email, "--retention", "0"); err != nil || !strings.Contains(out, "for good") {
		t.Fatalf("set-retention 0: %v (%s)", err, out)
	}
	e.Do("POST", "/api/events", key, old).Must(t, http.StatusCreated)
	if out, err := set("--email", ann.Email, "--retention", "default"); err != nil || !strings.Contains(out, "--retention") {
		t.Fatalf("set-retention default: %v (%s)", err, out)
	}
	log := e.Do("GET", "/api/audit-log?action=org.retention", ann.Token, nil).Must(t, http.StatusOK).Get("data").List()
	if len(log) != 3 || log[0].Get("detail", "retention_to").Str() != "default" || log[2].Get("detail", "retention_to").Str() != "30 days" {
		t.Fatalf("audit log %v", log)
	}
}
