package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

// One tenant cannot fill the appliance: an organization's events count
// against a quota (by default a share of the disk; the operator sets one
// with garrison org set-quota), its admins are told once at 80%, and past
// it a batch is refused whole with 507 while other organizations go on.
func TestStorageQuota(t *testing.T) {
	e := newTestEnv(t)
	ann := e.Register("ann@acme.test", "Acme")
	e.Member(ann, "bob@acme.test", "member")
	other := e.Register("zoe@other.test", "Other")
	key, otherKey := e.APIKey(ann, "write"), e.APIKey(other, "write")
	data := dataDirOf(t, e.app)

	s := e.Do("GET", "/api/org", ann.Token, nil).Must(t, http.StatusOK).Get("data", "storage")
	if s.Get("quota").Str() != "default" || s.Get("quota_bytes").Float() <= 0 || s.Get("used_bytes").Float() != 0 {
		t.Fatalf("a new organization's storage: %v", s)
	}
	setQuota := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runCLI(t, append([]string{"org", "set-quota", "--data", data}, args...), &out, &out)
		return out.String(), err
	}
	for name, args := range map[string][]string{
		"a member's address": {"--email", "bob@acme.test", "--quota", "1MiB"},
		"no size":            {"--email", ann.Email, "--quota", "lots"},
		"zero":               {"--email", ann.Email, "--quota", "0"},
		"no quota":           {"--email", ann.Email},
	} {
		if out, err := setQuota(args...); err == nil {
			t.Errorf("%s: accepted (%s)", name, out)
		}
	}
	if out, err := setQuota("--email", ann.Email, "--quota", "20KiB"); err != nil || !strings.Contains(out, "Acme") {
		t.Fatalf("set-quota: %v (%s)", err, out)
	}
	s = e.Do("GET", "/api/org", ann.Token, nil).Must(t, http.StatusOK).Get("data", "storage")
	if s.Get("quota").Str() != "own" || s.Get("quota_bytes").Float() != 20480 {
		t.Fatalf("after set-quota 20KiB: %v", s)
	}

	// 1 KiB events, until the quota refuses one.
	batch := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"type": "threat_detected", "severity": "low", "timestamp": e.clock.Now().Format(time.RFC3339),
				"source": "edr", "asset": "ws-01", "message": strings.Repeat("x", 900)}
		}
		return out
	}
	// Each event takes 1,023 bytes: the 17th passes 80% of 20 KiB, the
	// 21st would pass the quota.
	warnings := func() int {
		n := 0
		for _, m := range e.Mails("ann@acme.test") {
			if strings.Contains(m.Subject, "storage is") {
				n++
			}
		}
		return n
	}
	for i := 1; i <= 20; i++ {
		e.Do("POST", "/api/events", key, map[string]any{"events": batch(1)}).Must(t, http.StatusCreated)
		want := 0
		if i >= 17 {
			want = 1
		}
		if got := warnings(); got != want {
			t.Fatalf("after %d events, %d warnings, want %d", i, got, want)
		}
	}
	if m := e.Mails("bob@acme.test"); len(m) > 0 && strings.Contains(m[0].Subject, "storage") {
		t.Fatal("a member was warned: only admins are")
	}
	stored := 20
	r := e.Do("POST", "/api/events", key, map[string]any{"events": batch(1)})
	r.WantError(t, http.StatusInsufficientStorage, "storage_quota_exceeded",
		"The organization's storage quota is full: nothing was stored. Ask the appliance's operator for a larger quota "+
			"(garrison org set-quota); events make room as the retention prunes them")
	e.DoHeaders("POST", "/api/webhooks/native", map[string]any{"events": batch(1)},
		map[string]string{"Authorization": "Bearer " + key}).Must(t, http.StatusInsufficientStorage)
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").Float(); int(n) != stored {
		t.Fatalf("%d events stored, want the %d accepted: a refused batch stores nothing", int(n), stored)
	}
	e.Do("POST", "/api/events", otherKey, map[string]any{"events": batch(3)}).Must(t, http.StatusCreated)

	// The operator raises it; the audit log says who and what.
	if _, err := setQuota("--email", ann.Email, "--quota", "default"); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/events", key, map[string]any{"events": batch(3)}).Must(t, http.StatusCreated)
	entries := e.Do("GET", "/api/audit-log?action=org.quota", ann.Token, nil).Must(t, http.StatusOK).Get("data")
	for i, want := range [][2]string{{"20480", "default"}, {"default", "20480"}} { // newest first
		d := entries.At(i).Get("detail")
		if d.Get("quota_from").Str() != want[0] || d.Get("quota_to").Str() != want[1] || !strings.HasPrefix(entries.At(i).Get("actor").Str(), "cli:") {
			t.Fatalf("audit entry %d: %v, want from %s to %s", i, entries.At(i), want[0], want[1])
		}
	}
	if entries.Len() != 2 {
		t.Fatalf("audit: %v", entries)
	}
}
