package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/store"
)

// testIterations keeps PBKDF2 cheap in tests; production uses 600,000.
const testIterations = 1000

// fakeClock is the injected clock: tests move time instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// generousLimits keeps rate limits out of tests about other things; the
// rate-limit tests put the real defaults back.
const generousLimits = "auth=100000/1m,login=100000/1m,register=100000/1m,reset=100000/1m,jwt=100000/1m,apikey=100000/1m,agent-runs=100000/1m"

// testConfig is the serve configuration tests start from.
func testConfig(t testing.TB) config {
	cfg, err := parseServeConfig([]string{"--data", t.TempDir(), "--base-url", "https://garrison.test", "--limits", generousLimits},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testEnv is a whole app behind httptest, with a fake clock.
type testEnv struct {
	t     testing.TB
	app   *app
	srv   *httptest.Server
	clock *fakeClock
	logs  *lockedBuffer
	// stopRunner stops the agent runtime, as a shutdown does.
	stopRunner func()
}

func newTestEnv(t testing.TB, edit ...func(*config)) *testEnv {
	t.Helper()
	cfg := testConfig(t)
	for _, e := range edit {
		e(&cfg)
	}
	clock := newFakeClock()
	logs := &lockedBuffer{}
	a, err := newApp(context.Background(), cfg, slog.New(slog.NewJSONHandler(logs, nil)),
		appOptions{now: clock.Now, passwordIterations: testIterations})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.handler)
	var once sync.Once
	stop := startRunner(a)
	stopRunner := func() { once.Do(stop) }
	t.Cleanup(func() {
		srv.Close()
		stopRunner()
		a.store.Close()
	})
	return &testEnv{t: t, app: a, srv: srv, clock: clock, logs: logs, stopRunner: stopRunner}
}

// startRunner runs the app's agent runtime until the returned stop is
// called; stop waits for it to finish.
func startRunner(a *app) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.runner.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.String()
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (r response) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

func (r response) list() []any {
	d, _ := r.body["data"].([]any)
	return d
}

func (r response) str(path ...string) string {
	var v any = r.body
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// do sends a request. body may be nil, a string (sent raw) or a value
// (sent as JSON). cred, if set, goes in the Authorization header as Bearer.
func (e *testEnv) do(method, path, cred string, body any) response {
	e.t.Helper()
	return e.doHeaders(method, path, body, map[string]string{"Authorization": bearerHeader(cred)})
}

func bearerHeader(cred string) string {
	if cred == "" {
		return ""
	}
	return "Bearer " + cred
}

func (e *testEnv) doHeaders(method, path string, body any, headers map[string]string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if len(raw) > 0 && json.Unmarshal(raw, &out.body) != nil {
		e.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
	}
	return out
}

// must fails the test unless the answer has the wanted status.
func (r response) must(t testing.TB, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// wantError checks an error answer: status, code and, when given, the exact message.
func (r response) wantError(t testing.TB, status int, code, message string) {
	t.Helper()
	r.must(t, status)
	if r.body["success"] != false || r.str("code") != code {
		t.Fatalf("want success=false code=%q, got %s", code, r.raw)
	}
	if message != "" && r.str("error") != message {
		t.Fatalf("error message %q, want %q", r.str("error"), message)
	}
}

// wantFields checks a validation_error names exactly these fields.
func (r response) wantFields(t testing.TB, fields ...string) {
	t.Helper()
	r.wantError(t, http.StatusBadRequest, "validation_error", "")
	got, _ := r.body["fields"].([]any)
	var names []string
	for _, f := range got {
		names = append(names, f.(string))
	}
	if strings.Join(names, ",") != strings.Join(fields, ",") {
		t.Fatalf("fields %v, want %v (%s)", names, fields, r.raw)
	}
}

const testPassword = "correct horse battery"

type acct struct {
	token string
	id    string
	orgID string
	email string
}

// register makes an acct (and organization unless an invite is given).
func (e *testEnv) register(email, org string) acct {
	e.t.Helper()
	body := map[string]any{"email": email, "password": testPassword, "name": "Test User"}
	if org != "" {
		body["org"] = org
	}
	r := e.do("POST", "/api/auth/register", "", body).must(e.t, http.StatusCreated)
	return acct{token: r.str("token"), id: r.str("user", "id"), orgID: r.str("user", "org_id"), email: email}
}

func (e *testEnv) login(email, password string) response {
	e.t.Helper()
	return e.do("POST", "/api/auth/login", "", map[string]string{"email": email, "password": password})
}

// apiKey creates a key of the given scope as the admin.
func (e *testEnv) apiKey(admin acct, scope string) string {
	e.t.Helper()
	r := e.do("POST", "/api/api-keys", admin.token, map[string]string{"name": "test " + scope, "scope": scope}).
		must(e.t, http.StatusCreated)
	return r.str("data", "key")
}

// verify confirms an acct's e-mail address with the token mailed at
// registration, unless it is confirmed already.
func (e *testEnv) verify(a acct) {
	e.t.Helper()
	if e.do("GET", "/api/auth/me", a.token, nil).must(e.t, http.StatusOK).data()["email_verified"] == true {
		return
	}
	for _, m := range e.mails(a.email) {
		if tok := tokenInLink.FindStringSubmatch(m.Body); tok != nil && strings.Contains(m.Body, "verify-email?token=") {
			e.do("POST", "/api/auth/verify-email", "", map[string]string{"token": tok[1]}).must(e.t, http.StatusOK)
			return
		}
	}
	e.t.Fatalf("no verification mail to %s", a.email)
}

// member invites and registers a member into admin's organization.
func (e *testEnv) member(admin acct, email, role string) acct {
	e.t.Helper()
	e.verify(admin)
	inv := e.do("POST", "/api/org/invites", admin.token, map[string]string{"email": email, "role": role}).
		must(e.t, http.StatusCreated)
	r := e.do("POST", "/api/auth/register", "", map[string]any{"email": email, "password": testPassword,
		"name": "Member", "invite_token": inv.str("data", "token")}).must(e.t, http.StatusCreated)
	return acct{token: r.str("token"), id: r.str("user", "id"), orgID: r.str("user", "org_id"), email: email}
}

var tokenInLink = regexp.MustCompile(`token=([A-Za-z0-9_-]+)`)

// mailToken returns the token of the newest mail to an address.
func (e *testEnv) mailToken(to string) string {
	e.t.Helper()
	mails, err := e.app.store.Outbox(context.Background(), to, 1)
	if err != nil || len(mails) == 0 {
		e.t.Fatalf("no mail to %s (%v)", to, err)
	}
	m := tokenInLink.FindStringSubmatch(mails[0].Body)
	if m == nil {
		e.t.Fatalf("mail to %s has no token link: %q", to, mails[0].Body)
	}
	return m[1]
}

// resetToken requests a password reset and returns the token mailed for it,
// doing the mail worker's part in between.
func (e *testEnv) resetToken(email string) string {
	e.t.Helper()
	e.do("POST", "/api/auth/reset-request", "", map[string]string{"email": email}).must(e.t, http.StatusOK)
	if err := e.app.mailer.ProcessResetRequests(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return e.mailToken(email)
}

func (e *testEnv) mails(to string) []store.Mail {
	e.t.Helper()
	mails, err := e.app.store.Outbox(context.Background(), to, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	return mails
}

// dataDir returns the app's data directory (the database's folder).
func (a *app) dataDir(t testing.TB) string {
	t.Helper()
	var file string
	if err := a.store.DB().QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(file)
}

// rawDB opens the test database directly, for checks of what is stored.
func rawDB(t testing.TB, e *testEnv) *sql.DB { return e.app.store.DB() }

// runCLI runs the program as its command line would.
func runCLI(t testing.TB, args []string, stdout, stderr io.Writer) error {
	t.Helper()
	return run(context.Background(), args, func(string) string { return "" }, stdout, stderr)
}
