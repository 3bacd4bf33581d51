package intel

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"garrison/store"
	"garrison/store/storetest"
)

func testService(t *testing.T) *Service {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(dir, "g.db"), Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(Config{Store: st, TempDir: dir})
}

// mirror serves one file with an ETag, answering conditional requests, and
// fails while failures > 0.
type mirror struct {
	mu        sync.Mutex
	body      []byte
	etag      string
	failures  int
	requests  int
	notMod    int
	conditons []string
}

func (m *mirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	m.conditons = append(m.conditons, r.Header.Get("If-None-Match"))
	if m.failures > 0 {
		m.failures--
		http.Error(w, "mirror down", http.StatusBadGateway)
		return
	}
	if r.Header.Get("If-None-Match") == m.etag {
		m.notMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", m.etag)
	w.Write(m.body)
}

func (m *mirror) set(body []byte, etag string, failures int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.body, m.etag, m.failures = body, etag, failures
}

// kevMirror serves the KEV sample with ETag "v1", failing its first
// failures requests.
func kevMirror(t *testing.T, failures int) (*mirror, *httptest.Server, []byte) {
	t.Helper()
	kev, err := os.ReadFile("testdata/kev_sample.json")
	if err != nil {
		t.Fatal(err)
	}
	m := &mirror{}
	m.set(kev, `"v1"`, failures)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	return m, srv, kev
}

func kevCount(t *testing.T, s *Service) int {
	st, err := s.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.KEV
}

func TestSyncConditionalRequests(t *testing.T) {
	s := testService(t)
	m, srv, kev := kevMirror(t, 0)
	y := &Syncer{Service: s, URLs: []string{srv.URL + "/kev.json"}, Interval: time.Hour, Client: srv.Client(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := context.Background()

	if err := y.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := kevCount(t, s); n != 5 {
		t.Fatalf("%d KEV entries after the first sync", n)
	}
	// Unchanged: a conditional request, answered 304, imports nothing.
	if err := y.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if m.notMod != 1 || m.conditons[1] != `"v1"` {
		t.Fatalf("second request: %d not modified, conditions %q", m.notMod, m.conditons)
	}
	st, _ := s.Status(ctx)
	if imp := st.LastImports["kev"]; imp.Via != "sync" || imp.Name != "kev.json" {
		t.Fatalf("last KEV import: %+v", imp)
	}
	// Changed: fetched and imported; one entry fewer is kept (imports add and
	// update, they do not delete).
	m.set(bytes.Replace(kev, []byte("Git"), []byte("Git SCM"), 1), `"v2"`, 0)
	if err := y.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ = s.Status(ctx)
	if imp := st.LastImports["kev"]; imp.Changed != 1 || imp.Unchanged != 4 {
		t.Fatalf("changed file: %+v", imp)
	}
}

func TestSyncRetriesAfterFailures(t *testing.T) {
	s := testService(t)
	m, srv, _ := kevMirror(t, 2)
	var logs bytes.Buffer
	var logMu sync.Mutex
	y := &Syncer{Service: s, URLs: []string{srv.URL + "/kev.json"}, Interval: time.Hour, Client: srv.Client(), minBackoff: 10 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); y.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for kevCount(t, s) != 5 {
		if time.Now().After(deadline) {
			t.Fatal("the sync never recovered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	logMu.Lock()
	defer logMu.Unlock()
	if m.requests != 3 || bytes.Count(logs.Bytes(), []byte("intelligence sync failed")) != 2 {
		t.Fatalf("%d requests; logs:\n%s", m.requests, logs.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// cancelOn cancels when a message is logged: here, between a sync's import
// and the record of what it fetched, where a shutdown may fall.
type cancelOn struct {
	slog.Handler
	msg    string
	cancel context.CancelFunc
}

func (h cancelOn) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.cancel()
	}
	return h.Handler.Handle(ctx, r)
}

// TestSyncRecordedThroughShutdown: a file imported while the server began
// to stop is still recorded as fetched, so the next start asks for it
// conditionally instead of downloading and importing it again.
func TestSyncRecordedThroughShutdown(t *testing.T) {
	s := testService(t)
	m, srv, _ := kevMirror(t, 0)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	y := &Syncer{Service: s, URLs: []string{srv.URL + "/kev.json"}, Interval: time.Hour, Client: srv.Client(),
		Log: slog.New(cancelOn{Handler: slog.NewTextHandler(io.Discard, nil), msg: "intelligence synced", cancel: stop})}
	if err := y.SyncOnce(ctx); err != nil {
		t.Fatalf("sync stopped after its import: %v", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the stop never came")
	}
	y.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := y.SyncOnce(context.Background()); err != nil { // the next start
		t.Fatal(err)
	}
	if m.notMod != 1 || m.conditons[1] != `"v1"` {
		t.Fatalf("after the stop: %d not modified, conditions %q", m.notMod, m.conditons)
	}
}
