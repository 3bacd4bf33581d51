package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// get fetches a console path with headers, returning the answer and body.
func consoleGet(t *testing.T, e *env, method, path string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, e.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := e.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

var assetURL = regexp.MustCompile(`/assets/[0-9a-f]{12}/js/app\.js`)

func TestConsolePages(t *testing.T) {
	e := newEnv(t)
	res, page := consoleGet(t, e, "GET", "/", nil)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "require-trusted-types-for 'script'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
		"Cache-Control": "no-cache", "Cross-Origin-Opener-Policy": "same-origin"} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if bytes.Contains(page, []byte("<script>")) || bytes.Contains(page, []byte(" style=")) {
		t.Error("the page has inline script or style")
	}
	script := assetURL.Find(page)
	if script == nil {
		t.Fatalf("no versioned script in the page: %s", page)
	}

	t.Run("every page path is the page", func(t *testing.T) {
		for _, p := range []string{"/verify-email?token=abc", "/reset-password?token=abc", "/register?token=abc", "/alerts/alr_x", "/no/such/page", "/debug/vars", "/debug/pprof/heap"} {
			res, body := consoleGet(t, e, "GET", p, nil)
			if res.StatusCode != http.StatusOK || !bytes.Equal(body, page) {
				t.Errorf("%s: %d", p, res.StatusCode)
			}
		}
	})
	t.Run("assets are immutable, validated and compressed", func(t *testing.T) {
		res, plain := consoleGet(t, e, "GET", string(script), map[string]string{"Accept-Encoding": "identity"})
		if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "javascript") ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("ETag") == "" {
			t.Fatalf("asset: %d %v", res.StatusCode, res.Header)
		}
		again, _ := consoleGet(t, e, "GET", string(script), map[string]string{"If-None-Match": res.Header.Get("ETag")})
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match: %d", again.StatusCode)
		}
		// Go's client asks for gzip by itself and unpacks it; asking
		// explicitly keeps the packed body.
		zres, packed := consoleGet(t, e, "GET", string(script), map[string]string{"Accept-Encoding": "gzip"})
		if zres.Header.Get("Content-Encoding") != "gzip" || zres.Header.Get("ETag") == res.Header.Get("ETag") || len(packed) >= len(plain) {
			t.Fatalf("gzip: %v, %d of %d bytes", zres.Header, len(packed), len(plain))
		}
		zr, err := gzip.NewReader(bytes.NewReader(packed))
		if err != nil {
			t.Fatal(err)
		}
		if unpacked, _ := io.ReadAll(zr); !bytes.Equal(unpacked, plain) {
			t.Error("gzip body differs")
		}
		if res, _ := consoleGet(t, e, "GET", string(script), map[string]string{"Accept-Encoding": "gzip;q=0"}); res.Header.Get("Content-Encoding") != "" {
			t.Error("gzip sent to a client that refused it")
		}
		if res, body := consoleGet(t, e, "HEAD", string(script), nil); res.StatusCode != http.StatusOK || len(body) != 0 {
			t.Errorf("HEAD: %d, %d bytes", res.StatusCode, len(body))
		}
	})
	t.Run("old or unknown assets are 404", func(t *testing.T) {
		for _, p := range []string{"/assets/000000000000/js/app.js", strings.Replace(string(script), "app.js", "nope.js", 1), "/assets/"} {
			if res, _ := consoleGet(t, e, "GET", p, nil); res.StatusCode != http.StatusNotFound || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d %s", p, res.StatusCode, res.Header.Get("Cache-Control"))
			}
		}
	})
	t.Run("the API stays JSON", func(t *testing.T) {
		e.Do("GET", "/api", "", nil).WantError(t, http.StatusNotFound, "not_found", "")
		e.Do("GET", "/api/no-such-thing", "", nil).WantError(t, http.StatusNotFound, "not_found", "")
		r := e.Do("POST", "/login", "", map[string]string{})
		r.WantError(t, http.StatusMethodNotAllowed, "method_not_allowed", "")
		if r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("Allow %q", r.Header.Get("Allow"))
		}
	})
	// Small: every page of a working day (sortable, paged lists, time
	// ranges, refresh, bulk changes, notifications), a provider's clients
	// (the switcher, the fleet, the alert queue), alert notifications
	// (contact points, rules, the delivery log) and findings (the fix-first
	// list, decisions, inventory imports) in 352 KB, uncompressed.
	t.Run("small", func(t *testing.T) {
		scripts, styles := e.API.Console.(interface{ Size() (int, int) }).Size()
		if scripts+styles > 352<<10 {
			t.Errorf("%d bytes of script and %d of style: over 352 KB", scripts, styles)
		}
	})
}

// cookieOf returns the named cookie a response sets.
func cookieOf(r apitest.Response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestConsoleSession(t *testing.T) {
	e := newEnv(t)
	ann := e.Register("ann@acme.test", "Acme")
	bob := e.Register("bob@other.test", "Other")
	console := map[string]string{"X-Garrison-Console": "1"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"X-Garrison-Console": "1"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}

	login := e.DoHeaders("POST", "/api/auth/login", map[string]string{"email": ann.Email, "password": apitest.Password}, console).Must(t, http.StatusOK)
	c := cookieOf(login, "garrison_session")
	if c == nil || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/api" || c.MaxAge <= 0 {
		t.Fatalf("session cookie: %+v", c)
	}
	if marker := cookieOf(login, "garrison_signed_in"); marker == nil || marker.HttpOnly || marker.Value != "1" || marker.Path != "/" {
		t.Fatalf("signed-in marker: %+v", marker)
	}
	if strings.Contains(string(login.Raw), c.Value) || login.Body["token"] != nil || login.Data()["token"] != nil {
		t.Fatalf("the console's login answer shows the token: %s", login.Raw)
	}
	if login.Str("user", "email") != ann.Email {
		t.Fatalf("login answer: %s", login.Raw)
	}
	session := "garrison_session=" + c.Value
	host := strings.TrimPrefix(e.URL, "http://")

	cases := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		status  int
	}{
		{"the console's own request", "GET", "/api/auth/me", with(map[string]string{"Cookie": session, "Origin": "https://" + host, "Sec-Fetch-Site": "same-origin"}), http.StatusOK},
		{"without an Origin (a same-origin GET)", "GET", "/api/auth/me", with(map[string]string{"Cookie": session}), http.StatusOK},
		{"without the console header", "GET", "/api/auth/me", map[string]string{"Cookie": session}, http.StatusForbidden},
		{"from another site's page", "GET", "/api/auth/me", with(map[string]string{"Cookie": session, "Origin": "https://evil.example"}), http.StatusForbidden},
		{"from this host over plain HTTP", "GET", "/api/auth/me", with(map[string]string{"Cookie": session, "Origin": "http://" + host}), http.StatusForbidden},
		{"cross-site fetch metadata", "GET", "/api/auth/me", with(map[string]string{"Cookie": session, "Sec-Fetch-Site": "cross-site"}), http.StatusForbidden},
		{"a cross-site form post", "POST", "/api/api-keys", map[string]string{"Cookie": session, "Origin": "https://evil.example",
			"Content-Type": "application/x-www-form-urlencoded"}, http.StatusForbidden},
		{"an API key in the cookie", "GET", "/api/auth/me", with(map[string]string{"Cookie": "garrison_session=" + e.APIKey(ann, "admin")}), http.StatusUnauthorized},
		{"a forged cookie", "GET", "/api/auth/me", with(map[string]string{"Cookie": "garrison_session=eyJ.forged.token"}), http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.DoHeaders(tc.method, tc.path, map[string]string{"name": "csrf"}, tc.headers)
			if r.Status != tc.status {
				t.Fatalf("%d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			if tc.status == http.StatusForbidden && r.Body["error"] != "Cross-site request refused: a console session needs the X-Garrison-Console header from this site" {
				t.Fatalf("message: %s", r.Raw)
			}
			if tc.status == http.StatusUnauthorized {
				if gone := cookieOf(r, "garrison_session"); gone == nil || gone.MaxAge >= 0 {
					t.Fatalf("a refused cookie is not cleared: %v", r.Header["Set-Cookie"])
				}
			}
		})
	}
	for _, k := range e.Do("GET", "/api/api-keys", ann.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		if k.MustObject(t).Get("name").Str() == "csrf" {
			t.Fatal("the cross-site form post created a key")
		}
	}
	t.Run("a bearer wins over the cookie", func(t *testing.T) {
		r := e.DoHeaders("GET", "/api/auth/me", nil, map[string]string{"Cookie": session, "Authorization": "Bearer " + bob.Token}).Must(t, http.StatusOK)
		if r.Data()["email"] != bob.Email {
			t.Fatalf("answered as %v", r.Data()["email"])
		}
	})
	t.Run("a console write", func(t *testing.T) {
		e.DoHeaders("POST", "/api/api-keys", map[string]string{"name": "from the console", "scope": "read"},
			with(map[string]string{"Cookie": session, "Origin": "https://" + host})).Must(t, http.StatusCreated)
	})
	t.Run("sign out clears the cookie and ends the session", func(t *testing.T) {
		r := e.DoHeaders("POST", "/api/auth/logout", map[string]string{}, with(map[string]string{"Cookie": session})).Must(t, http.StatusOK)
		if gone := cookieOf(r, "garrison_session"); gone == nil || gone.MaxAge >= 0 || gone.Value != "" {
			t.Fatalf("logout cookie: %v", r.Header["Set-Cookie"])
		}
		if marker := cookieOf(r, "garrison_signed_in"); marker == nil || marker.MaxAge >= 0 {
			t.Fatalf("logout marker: %v", r.Header["Set-Cookie"])
		}
		stale := e.DoHeaders("GET", "/api/auth/me", nil, with(map[string]string{"Cookie": session}))
		stale.WantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	})
	t.Run("registration and bearer clients are unchanged", func(t *testing.T) {
		r := e.DoHeaders("POST", "/api/auth/register", map[string]string{"email": "cat@cat.test", "password": apitest.Password, "name": "Cat"}, console).Must(t, http.StatusCreated)
		if cookieOf(r, "garrison_session") == nil || r.Body["token"] != nil {
			t.Fatalf("console registration: %s", r.Raw)
		}
		plain := e.Login(ann.Email, apitest.Password).Must(t, http.StatusOK)
		if plain.Str("token") == "" || cookieOf(plain, "garrison_session") != nil {
			t.Fatalf("an API client's login: %s %v", plain.Raw, plain.Header["Set-Cookie"])
		}
	})
}
