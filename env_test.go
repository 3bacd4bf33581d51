package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"garrison/app"
	"garrison/handlers/apitest"
)

// testConfig is the serve configuration tests start from.
func testConfig(t testing.TB) config {
	cfg, err := parseServeConfig([]string{"--data", t.TempDir(), "--base-url", apitest.BaseURL, "--limits", apitest.GenerousLimits},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Unnamed: the series tests look for carry no node label (the tests
	// that name a node say so).
	cfg.node = ""
	return cfg
}

// testEnv is the whole app, as run wires it with the real session tokens,
// behind httptest with a fake clock.
type testEnv struct {
	*apitest.Client
	app   *app.App
	jwt   *jwtCodec // the app's session codec: same secret, same clock
	srv   *httptest.Server
	clock *apitest.Clock
	logs  *apitest.LockedBuffer
	// stopRunner stops the agent runtime, as a shutdown does.
	stopRunner func()
}

func newTestEnv(t testing.TB, edit ...func(*config)) *testEnv {
	t.Helper()
	cfg := testConfig(t)
	for _, e := range edit {
		e(&cfg)
	}
	clock := apitest.NewClock()
	logs := &apitest.LockedBuffer{}
	a, err := newApp(context.Background(), cfg, slog.New(slog.NewJSONHandler(logs, nil)),
		appOptions{now: clock.Now, passwordIterations: apitest.Iterations})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := loadSecret(cfg.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := newJWTCodec(secret, cfg.jwtTTL, cfg.sessionMax, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	var once sync.Once
	stop := startRunner(a)
	stopRunner := func() { once.Do(stop) }
	t.Cleanup(func() {
		srv.Close()
		stopRunner()
		a.Close()
	})
	e := &testEnv{Client: &apitest.Client{T: t, URL: srv.URL, HTTP: srv.Client(), Store: a.Store, Mailer: a.Mailer},
		app: a, jwt: codec, srv: srv, clock: clock, logs: logs, stopRunner: stopRunner}
	e.CheckOpenAPI() // the real app's answers hold to the document too
	return e
}

// startRunner runs the app's agent runtime until the returned stop is
// called; stop waits for it to finish.
func startRunner(a *app.App) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	wait := a.Start(ctx, app.Agents)
	return func() {
		cancel()
		wait()
	}
}

// dataDirOf returns the app's data directory (the database's folder).
func dataDirOf(t testing.TB, a *app.App) string {
	t.Helper()
	var file string
	if err := a.Store.DB().QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(file)
}

// runCLI runs the program as its command line would.
func runCLI(t testing.TB, args []string, stdout, stderr io.Writer) error {
	t.Helper()
	return run(context.Background(), args, func(string) string { return "" }, stdout, stderr)
}
