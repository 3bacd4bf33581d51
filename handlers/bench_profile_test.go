package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"garrison/handlers/apitest"
)

// BenchmarkProfileReads loads one read endpoint (PROFILE_PATH, default
// the events page; PROFILE_JWT=1 for a session instead of a read key) of
// an organization with 1,000,000 events, seeded once into
// GARRISON_SEED_DIR (default garrison-seed1m under the temporary
// directory) and reused: a profile of where a read's time goes.
//
//	go test -run XXX -bench ProfileReads -benchtime 3000x ./handlers -cpuprofile /tmp/cpu.out
func BenchmarkProfileReads(b *testing.B) {
	dir := os.Getenv("GARRISON_SEED_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "garrison-seed1m")
	}
	_, statErr := os.Stat(dir + "/garrison.db")
	os.MkdirAll(dir, 0o700)
	e := newEnv(b, func(c *apitest.Config) { c.DataDir = dir; c.LogLevel = slog.LevelWarn })
	var admin apitest.Account
	if statErr != nil {
		admin = e.Register("ann@acme.test", "Acme")
		seedMillion(b, e, admin.OrgID)
	} else {
		r := e.Login("ann@acme.test", apitest.Password)
		admin = apitest.Account{Token: r.Str("token")}
	}
	e.UseLimits("jwt=100000000/1m,apikey=100000000/1m", nil)
	key := e.APIKey(admin, "read")
	if os.Getenv("PROFILE_JWT") != "" {
		key = admin.Token
	}
	path := os.Getenv("PROFILE_PATH")
	if path == "" {
		path = "/api/events?limit=50"
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", e.Server.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := e.Server.Client().Do(req)
			if err != nil || res.StatusCode != http.StatusOK {
				b.Fatal(err, res.Status)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
}

// BenchmarkMiddlewareHealth is what every request pays before and after
// its handler (request id, headers, rate limit, metrics, access rules),
// on the cheapest route and without a network: PROFILE_PATH picks another
// public path.
//
//	go test -run XXX -bench MiddlewareHealth -benchmem ./handlers
func BenchmarkMiddlewareHealth(b *testing.B) {
	e := newEnv(b, func(c *apitest.Config) { c.LogLevel = slog.LevelWarn })
	e.UseLimits("jwt=100000000/1m,apikey=100000000/1m,auth=100000000/1m", nil)
	h := e.API.Handler()
	path := os.Getenv("PROFILE_PATH")
	if path == "" {
		path = "/api/dashboard/health"
	}
	// Over TLS like every real request: it adds the HSTS header.
	req := httptest.NewRequest("GET", "https://garrison.test"+path, nil)
	req.RemoteAddr = "127.0.0.1:5555"
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
