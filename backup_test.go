package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupRestoreUnderLoad backs up while events keep arriving, restores
// into a new directory, serves it, and finds everything acknowledged before
// the backup began, with sessions issued before it still valid.
func TestBackupRestoreUnderLoad(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	dataDir := dataDirOf(t, e.app)
	at := e.clock.Now().Add(-time.Hour).Format(time.RFC3339)
	batch := func(i int) []byte {
		var b strings.Builder
		b.WriteString(`{"events":[`)
		for j := range 50 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"threat_detected","severity":"low","source":"sensor-%d","asset":"web-01","timestamp":"%s","message":"probe %d-%d"}`, i%3, at, i, j)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	send := func(i int) bool {
		r := e.DoHeaders("POST", "/api/events", batch(i), map[string]string{"Authorization": "Bearer " + key})
		return r.Status == http.StatusCreated
	}
	before := 0
	for i := range 20 {
		if r := e.DoHeaders("POST", "/api/events", batch(i), map[string]string{"Authorization": "Bearer " + key}); r.Status != http.StatusCreated {
			t.Fatalf("ingest refused: %d %s", r.Status, r.Raw)
		}
		before += 50
	}
	// Writers keep going during the backup.
	var stop atomic.Bool
	var acked atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if send(1000*(w+1) + i) {
					acked.Add(50)
				}
			}
		})
	}
	out := filepath.Join(t.TempDir(), "backup")
	var msg bytes.Buffer
	err := runCLI(t, []string{"backup", "--data", dataDir, out}, &msg, &msg)
	stop.Store(true)
	wg.Wait()
	if err != nil || !strings.Contains(msg.String(), "Backed up") {
		t.Fatalf("backup: %v %s", err, msg.String())
	}
	if acked.Load() == 0 {
		t.Fatal("no write went on during the backup")
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // a backup holds the signing secret and every event
		if info, err := e.Info(); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("backup file %s: %v %v", e.Name(), info.Mode(), err)
		}
	}
	// A backup goes into a new directory; a damaged one is refused.
	if err := runCLI(t, []string{"backup", "--data", dataDir, out}, &msg, &msg); err == nil {
		t.Fatal("backup over an existing directory")
	}
	if err := runCLI(t, []string{"restore", "--data", dataDir, out}, &msg, &msg); err == nil || !strings.Contains(err.Error(), "holds a database") {
		t.Fatalf("restore over a data directory in use: %v", err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged")
	if err := copyTree(out, damaged); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(damaged, secretFileName), []byte("tampered"), 0o600)
	if err := runCLI(t, []string{"restore", "--data", filepath.Join(t.TempDir(), "x"), damaged}, &msg, &msg); err == nil ||
		!strings.Contains(err.Error(), "does not match the manifest") {
		t.Fatalf("damaged backup: %v", err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if err := runCLI(t, []string{"restore", "--data", restored, out}, &msg, &msg); err != nil {
		t.Fatalf("restore: %v %s", err, msg.String())
	}
	r := newTestEnv(t, func(c *config) { c.dataDir = restored })
	me := r.Do("GET", "/api/auth/me", admin.Token, nil).Must(t, http.StatusOK).Data()
	if me["email"] != "ann@acme.test" {
		t.Fatalf("the session from before the backup: %v", me)
	}
	total := r.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").MustFloat(t)
	if int(total) < before || int64(total) > int64(before)+acked.Load() {
		t.Fatalf("restored %v events; %d were acknowledged before the backup, %d during it", total, before, acked.Load())
	}
	for _, f := range []string{"garrison.db", secretFileName} {
		if info, err := os.Stat(filepath.Join(restored, f)); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, info, err)
		}
	}
}
