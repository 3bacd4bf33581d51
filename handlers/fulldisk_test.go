package handlers_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// smallDisk mounts a file system of size bytes for the test (a tmpfs: it
// needs root) and returns its directory, unmounted when the test ends.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("SKIP: a real full disk needs a small file system: mounting a %s tmpfs at %s: %v (run as root)", size, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill takes every free block of dir's file system with one file, and
// returns a func that gives them back.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler")
	if err != nil {
		t.Fatal(err)
	}
	path := f.Name()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}

// eventually polls check every 50 ms for up to 10 s: for what the
// server's background loops do on their own.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if check() {
			return
		}
	}
	t.Fatalf("never: %s", what)
}

// fillerBatch is 200 events of about a kilobyte each.
func fillerBatch(e *env) map[string]any {
	evs := make([]map[string]any, 200)
	for i := range evs {
		evs[i] = map[string]any{"type": "threat_detected", "severity": "low", "source": "ids", "asset": "web-01",
			"timestamp": e.Clock.Now().Format(time.RFC3339), "message": strings.Repeat("fills the disk ", 60)}
	}
	return map[string]any{"events": evs}
}

// TestFullDiskEdges runs the server on a real 16 MiB file system and fills
// it. Health stays degraded while writes fail, whatever small write or
// background probe still fits. On the reserve the disk kept, sign-ins and
// alert work go on while events are refused; with the reserve gone too, a
// logout and "sign out everywhere" still take effect at once, and are
// written when space comes back.
func TestFullDiskEdges(t *testing.T) {
	apitest.SQLiteOnly(t, "it fills the disk through SQLite's page limit (PRAGMA max_page_count); PostgreSQL's disk-full error (53100) is mapped to 503 the same way, but this harness cannot fill its disk")
	disk := smallDisk(t, "16m")
	e := newEnv(t, func(c *apitest.Config) { c.DataDir = filepath.Join(disk, "data") })
	ann := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(ann, "write")
	login := func() apitest.Response { return e.Login(ann.Email, apitest.Password) }
	first, second := login().Must(t, http.StatusOK).Str("token"), login().Must(t, http.StatusOK).Str("token")
	freeFirst := fill(t, disk)

	// The write-ahead log and the database's free pages may still take a
	// batch or a few (how many depends on what the migrations and the last
	// checkpoint left); the disk is full once one is refused.
	batch := fillerBatch(e)
	r := e.Do("POST", "/api/events", key, batch)
	for i := 0; r.Status == http.StatusCreated && i < 50; i++ {
		r = e.Do("POST", "/api/events", key, batch)
	}
	r.WantError(t, http.StatusServiceUnavailable, "unavailable", "")
	degraded := func() bool {
		h := e.Do("GET", "/api/dashboard/health", "", nil)
		return h.Status == http.StatusServiceUnavailable && h.Str("reason") == "the disk is full"
	}
	if !degraded() {
		t.Fatal("health after a refused batch is not degraded")
	}
	// On the reserve: the on-call person signs in; events stay refused,
	// and the background probe's small write does not make health ok.
	time.Sleep(2500 * time.Millisecond) // two probes
	if !degraded() {
		t.Fatal("health said ok on a full disk after the background probe")
	}
	third := login().Must(t, http.StatusOK).Str("token")
	e.Do("POST", "/api/events", key, batch).WantError(t, http.StatusServiceUnavailable, "unavailable",
		"The disk is full: events and imports are refused until space is freed (sign-ins, logouts and alert work go on); nothing was stored, retry later")

	// The reserve gone too: signing out still works at once.
	freeSecond := fill(t, disk)
	for i := 0; i < 50 && login().Status == http.StatusOK; i++ { // the WAL's slack, as above
	}
	login().WantError(t, http.StatusServiceUnavailable, "unavailable", "")
	e.Do("POST", "/api/auth/logout", first, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/auth/me", first, nil).Must(t, http.StatusUnauthorized)
	e.Do("GET", "/api/auth/me", second, nil).Must(t, http.StatusOK)
	e.Do("POST", "/api/auth/logout-all", second, nil).Must(t, http.StatusOK)
	for _, token := range []string{second, third} {
		e.Do("GET", "/api/auth/me", token, nil).Must(t, http.StatusUnauthorized)
	}

	// Space comes back: the logouts are written, the reserve made again,
	// health says ok and events are taken.
	freeFirst()
	freeSecond()
	eventually(t, "health ok once space is back", func() bool {
		return e.Do("GET", "/api/dashboard/health", "", nil).Status == http.StatusOK
	})
	eventually(t, "the held revocation written", func() bool {
		var n int
		e.Store.DB().QueryRow(`SELECT COUNT(*) FROM revoked_tokens`).Scan(&n)
		return n >= 1
	})
	var version int
	if err := e.Store.DB().QueryRow(`SELECT token_version FROM users WHERE id = ?`, ann.ID).Scan(&version); err != nil || version < 1 {
		t.Fatalf("sign out everywhere written as token_version %d (%v)", version, err)
	}
	if _, err := os.Stat(filepath.Join(disk, "data", "garrison.db-reserve")); err != nil {
		t.Fatalf("the reserve was not made again: %v", err)
	}
	for _, token := range []string{first, second, third} {
		e.Do("GET", "/api/auth/me", token, nil).Must(t, http.StatusUnauthorized)
	}
	e.Do("GET", "/api/auth/me", login().Must(t, http.StatusOK).Str("token"), nil).Must(t, http.StatusOK)
	e.Do("POST", "/api/events", key, batch).Must(t, http.StatusCreated)
}

// TestStartOnAFullDisk: a server stopped cleanly starts again on a disk
// filled meanwhile, on its reserve: degraded, reads and sign-ins work,
// events are refused.
func TestStartOnAFullDisk(t *testing.T) {
	apitest.SQLiteOnly(t, "it fills the disk through SQLite's page limit (PRAGMA max_page_count); PostgreSQL's disk-full error (53100) is mapped to 503 the same way, but this harness cannot fill its disk")
	disk := smallDisk(t, "16m")
	data := filepath.Join(disk, "data")
	var key string
	t.Run("before", func(t *testing.T) {
		e := newEnv(t, func(c *apitest.Config) { c.DataDir = data })
		key = e.APIKey(e.Register("ann@acme.test", "Acme"), "write")
		e.Do("POST", "/api/events", key, fillerBatch(e)).Must(t, http.StatusCreated)
	})
	fill(t, disk)
	e := newEnv(t, func(c *apitest.Config) { c.DataDir = data })
	h := e.Do("GET", "/api/dashboard/health", "", nil)
	if h.Status != http.StatusServiceUnavailable || h.Str("reason") != "the disk is full" {
		t.Fatalf("health after starting on a full disk: %d %s", h.Status, h.Raw)
	}
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 200 {
		t.Fatalf("%d events read back, want 200", n)
	}
	e.Login("ann@acme.test", apitest.Password).Must(t, http.StatusOK)
	e.Do("POST", "/api/events", key, fillerBatch(e)).WantError(t, http.StatusServiceUnavailable, "unavailable", "")
}
