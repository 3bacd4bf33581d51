package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"garrison/mail"
	"garrison/store"
)

// Client speaks to a running API as a client would. Store and Mailer, when
// set, let it read the mail the server queued.
type Client struct {
	T      testing.TB
	URL    string // the server's base URL
	HTTP   *http.Client
	Store  *store.Store
	Mailer *mail.Mailer
	rec    *recorder // the OpenAPI response check (CheckOpenAPI), if on
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data is the answer's data object.
func (r Response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// List is the answer's data list.
func (r Response) List() []any {
	d, _ := r.Body["data"].([]any)
	return d
}

// Str follows path through nested objects to a string ("" if absent).
func (r Response) Str(path ...string) string { return r.Get(path...).Str() }

// Must fails the test unless the answer has the wanted status.
func (r Response) Must(t testing.TB, status int) Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	return r
}

// WantError checks an error answer: status, code and, when given, the exact message.
func (r Response) WantError(t testing.TB, status int, code, message string) {
	t.Helper()
	r.Must(t, status)
	if r.Body["success"] != false || r.Str("code") != code {
		t.Fatalf("want success=false code=%q, got %s", code, r.Raw)
	}
	if message != "" && r.Str("error") != message {
		t.Fatalf("error message %q, want %q", r.Str("error"), message)
	}
}

// WantFields checks a validation_error names exactly these fields.
func (r Response) WantFields(t testing.TB, fields ...string) {
	t.Helper()
	r.WantError(t, http.StatusBadRequest, "validation_error", "")
	var names []string
	for _, f := range r.Get("fields").List() {
		names = append(names, f.MustStr(t))
	}
	if strings.Join(names, ",") != strings.Join(fields, ",") {
		t.Fatalf("fields %v, want %v (%s)", names, fields, r.Raw)
	}
}

// Do sends a request. body may be nil, a string or []byte (sent raw) or a
// value (sent as JSON). cred, if set, goes in the Authorization header.
func (e *Client) Do(method, path, cred string, body any) Response {
	e.T.Helper()
	return e.DoHeaders(method, path, body, map[string]string{"Authorization": Bearer(cred)})
}

// Bearer is the Authorization header of a credential ("" for none).
func Bearer(cred string) string {
	if cred == "" {
		return ""
	}
	return "Bearer " + cred
}

// DoHeaders is Do with any headers; an empty value removes the header.
func (e *Client) DoHeaders(method, path string, body any, headers map[string]string) Response {
	e.T.Helper()
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
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, e.URL+path, rd)
	if err != nil {
		e.T.Fatal(err)
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
	var reason string
	if e.rec != nil {
		reason = e.rec.take()
	}
	res, err := e.HTTP.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if e.rec != nil {
		// res.Request is the request that got this answer (the last, had
		// there been a redirect).
		u := res.Request.URL
		e.rec.record(exchange{method: res.Request.Method, path: u.Path, rawPath: u.EscapedPath(), status: res.StatusCode,
			header: res.Header.Clone(), raw: raw, reason: reason})
	}
	// Downloads (CSV, HTML, Markdown) stay in Raw; JSON is decoded.
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "" && mt != "application/json" {
		return out
	}
	if len(raw) > 0 && json.Unmarshal(raw, &out.Body) != nil {
		e.T.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
	}
	return out
}

// Password is every test account's password.
const Password = "correct horse battery"

// Account is a registered user and their session.
type Account struct {
	Token, ID, OrgID, Email string
}

// Register makes an account (and its organization, named org or after the
// address's domain).
func (e *Client) Register(email, org string) Account {
	e.T.Helper()
	body := map[string]any{"email": email, "password": Password, "name": "Test User"}
	if org != "" {
		body["org"] = org
	}
	r := e.Do("POST", "/api/auth/register", "", body).Must(e.T, http.StatusCreated)
	return Account{Token: r.Str("token"), ID: r.Str("user", "id"), OrgID: r.Str("user", "org_id"), Email: email}
}

// Login posts the credentials and returns the answer.
func (e *Client) Login(email, password string) Response {
	e.T.Helper()
	return e.Do("POST", "/api/auth/login", "", map[string]string{"email": email, "password": password})
}

// APIKey creates a key of the given scope as the admin.
func (e *Client) APIKey(admin Account, scope string) string {
	e.T.Helper()
	r := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "test " + scope, "scope": scope}).
		Must(e.T, http.StatusCreated)
	return r.Str("data", "key")
}

// Verify confirms an account's address with the token mailed at
// registration, unless it is confirmed already.
func (e *Client) Verify(a Account) {
	e.T.Helper()
	if e.Do("GET", "/api/auth/me", a.Token, nil).Must(e.T, http.StatusOK).Data()["email_verified"] == true {
		return
	}
	for _, m := range e.Mails(a.Email) {
		if tok := TokenInLink.FindStringSubmatch(m.Body); tok != nil && strings.Contains(m.Body, "verify-email?token=") {
			e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": tok[1]}).Must(e.T, http.StatusOK)
			return
		}
	}
	e.T.Fatalf("no verification mail to %s", a.Email)
}

// Member invites and registers a member into admin's organization.
func (e *Client) Member(admin Account, email, role string) Account {
	e.T.Helper()
	e.Verify(admin)
	inv := e.Do("POST", "/api/org/invites", admin.Token, map[string]string{"email": email, "role": role}).
		Must(e.T, http.StatusCreated)
	r := e.Do("POST", "/api/auth/register", "", map[string]any{"email": email, "password": Password,
		"name": "Member", "invite_token": inv.Str("data", "token")}).Must(e.T, http.StatusCreated)
	return Account{Token: r.Str("token"), ID: r.Str("user", "id"), OrgID: r.Str("user", "org_id"), Email: email}
}

// TokenInLink finds the token of a mailed link.
var TokenInLink = regexp.MustCompile(`token=([A-Za-z0-9_-]+)`)

// MailToken returns the token of the newest mail to an address.
func (e *Client) MailToken(to string) string {
	e.T.Helper()
	mails, err := e.Store.Outbox(context.Background(), to, 1)
	if err != nil || len(mails) == 0 {
		e.T.Fatalf("no mail to %s (%v)", to, err)
	}
	m := TokenInLink.FindStringSubmatch(mails[0].Body)
	if m == nil {
		e.T.Fatalf("mail to %s has no token link: %q", to, mails[0].Body)
	}
	return m[1]
}

// ResetToken requests a password reset and returns the token mailed for
// it, doing the mailer's part in between.
func (e *Client) ResetToken(email string) string {
	e.T.Helper()
	e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": email}).Must(e.T, http.StatusOK)
	if err := e.Mailer.ProcessResetRequests(context.Background()); err != nil {
		e.T.Fatal(err)
	}
	return e.MailToken(email)
}

// Mails returns the outbox's messages to an address, newest first.
func (e *Client) Mails(to string) []store.Mail {
	e.T.Helper()
	mails, err := e.Store.Outbox(context.Background(), to, 100)
	if err != nil {
		e.T.Fatal(err)
	}
	return mails
}
