package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/credential"
	"garrison/handlers/apitest"
	"garrison/store"
)

// BenchmarkJWTVerify is the signature and claims check alone.
func BenchmarkJWTVerify(b *testing.B) {
	codec, _ := newJWTCodec([]byte(strings.Repeat("k", 32)), time.Hour, 24*time.Hour, time.Now)
	tok, _ := codec.Issue(store.User{ID: "usr_01m7zy4ek3pp26xvyvaqm2tqd9", OrgID: "org_01m7zy4ek3g8em604zy86h1f99"}, time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codec.Verify(tok.Token); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticateJWT is what a JWT request pays end to end: verify,
// then one query for the user, its token_version and the denylist.
func BenchmarkAuthenticateJWT(b *testing.B) {
	e := newTestEnv(b)
	a := e.Register("ann@acme.test", "Acme")
	b.ReportAllocs()
	for b.Loop() {
		e.Do("GET", "/api/auth/me", a.Token, nil).Must(b, http.StatusOK)
	}
}

// benchmarkLogin measures POST /auth/login end to end at the production
// PBKDF2 cost and reports the median latency.
func benchmarkLogin(b *testing.B, email string) {
	cfg := testConfig(b)
	a, err := newApp(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)),
		appOptions{passwordIterations: credential.DefaultIterations})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	post := func(path, body string) int {
		res, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	if post("/api/auth/register", `{"email":"ann@acme.test","password":"`+apitest.Password+`","name":"Ann"}`) != http.StatusCreated {
		b.Fatal("register failed")
	}
	body := `{"email":"` + email + `","password":"` + apitest.Password + `"}`
	var durations []time.Duration
	for b.Loop() {
		start := time.Now()
		post("/api/auth/login", body)
		durations = append(durations, time.Since(start))
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}

func BenchmarkLogin(b *testing.B)             { benchmarkLogin(b, "ann@acme.test") }
func BenchmarkLoginUnknownEmail(b *testing.B) { benchmarkLogin(b, "nobody@acme.test") }
