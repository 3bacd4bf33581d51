package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// seen is what the fake chat completions server received.
type seen struct {
	method, path        string
	auth, ctype, accept string
	hasAuth             bool
	body                []byte
}

// fake starts a local stand-in for a chat completions API that answers
// every request with status and body, and reports each request it got.
func fake(t *testing.T, status int, body string) (*httptest.Server, <-chan seen) {
	t.Helper()
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, hasAuth := r.Header["Authorization"]
		select {
		case got <- seen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("Accept"), hasAuth, b}:
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// reply is a chat completions response carrying content.
func reply(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id":      "chatcmpl-1",
		"object":  "chat.completion",
		"model":   "test-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
	})
	return string(b)
}

func receive(t *testing.T, got <-chan seen) seen {
	t.Helper()
	select {
	case s := <-got:
		return s
	default:
		t.Fatal("the fake server received no request")
		return seen{}
	}
}

func TestComplete(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Say hello."}}
	cases := []struct {
		name   string
		suffix string // appended to the fake's URL to make Config.URL
		apiKey string
	}{
		{name: "base URL with key", suffix: "/v1", apiKey: "sk-test"},
		{name: "base URL without key", suffix: "/v1"},
		{name: "trailing slash", suffix: "/v1/"},
		{name: "full endpoint", suffix: "/v1/chat/completions", apiKey: "k"},
		{name: "full endpoint, trailing slash", suffix: "/v1/chat/completions/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := fake(t, http.StatusOK, reply("  Hello.\n"))
			c := New(Config{URL: srv.URL + tc.suffix, Model: "test-model", APIKey: tc.apiKey, HTTP: srv.Client()})
			out, err := c.Complete(context.Background(), msgs)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if out != "Hello." {
				t.Errorf("content = %q, want %q", out, "Hello.")
			}

			r := receive(t, got)
			if r.method != http.MethodPost || r.path != "/v1/chat/completions" {
				t.Errorf("request = %s %s, want POST /v1/chat/completions", r.method, r.path)
			}
			if r.ctype != "application/json" || r.accept != "application/json" {
				t.Errorf("Content-Type %q, Accept %q, want application/json", r.ctype, r.accept)
			}
			wantAuth := ""
			if tc.apiKey != "" {
				wantAuth = "Bearer " + tc.apiKey
			}
			if r.hasAuth != (tc.apiKey != "") || r.auth != wantAuth {
				t.Errorf("Authorization = %q (present %v), want %q", r.auth, r.hasAuth, wantAuth)
			}

			var body map[string]json.RawMessage
			if err := json.Unmarshal(r.body, &body); err != nil {
				t.Fatalf("request body: %v", err)
			}
			want := map[string]string{"model": `"test-model"`, "temperature": `0`, "stream": `false`}
			for k, v := range want {
				if string(body[k]) != v {
					t.Errorf("body[%q] = %s, want %s", k, body[k], v)
				}
			}
			var gotMsgs []Message
			if err := json.Unmarshal(body["messages"], &gotMsgs); err != nil || len(gotMsgs) != 2 || gotMsgs[0] != msgs[0] || gotMsgs[1] != msgs[1] {
				t.Errorf("messages = %s, want %v", body["messages"], msgs)
			}
		})
	}
}

func TestCompleteErrors(t *testing.T) {
	const key = "sk-secret-123"
	long := strings.Repeat("x", 500)
	cases := []struct {
		name    string
		status  int
		body    string
		want    []string // substrings of the error
		notWant []string
	}{
		{
			name:    "OpenAI error body echoing the key",
			status:  http.StatusUnauthorized,
			body:    `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`,
			want:    []string{"llm:", "401", "Incorrect API key provided"},
			notWant: []string{key},
		},
		{
			name:    "long error message is cut to 200 bytes",
			status:  http.StatusInternalServerError,
			body:    `{"error":{"message":"` + long + `"}}`,
			want:    []string{"500", strings.Repeat("x", 170) + "… [truncated from 500 bytes]"},
			notWant: []string{strings.Repeat("x", 171)},
		},
		{name: "error status, plain body", status: http.StatusBadGateway, body: "<html>bad gateway</html>", want: []string{"llm:", "502"}, notWant: []string{"html"}},
		{name: "malformed JSON", status: http.StatusOK, body: `{"choices":[`, want: []string{"llm:", "malformed"}},
		{name: "no choices", status: http.StatusOK, body: `{"choices":[]}`, want: []string{"llm:", "no choices"}},
		{name: "error in a 200", status: http.StatusOK, body: `{"error":{"message":"model not loaded"}}`, want: []string{"no choices", "model not loaded"}},
		{name: "empty content", status: http.StatusOK, body: reply(" \n "), want: []string{"llm:", "empty content"}},
		{name: "null content", status: http.StatusOK, body: `{"choices":[{"message":{"role":"assistant","content":null}}]}`, want: []string{"empty content"}},
		{
			name:   "oversize body",
			status: http.StatusOK,
			body:   reply(strings.Repeat("a", 1<<20)),
			want:   []string{"llm:", "larger than"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fake(t, tc.status, tc.body)
			c := New(Config{URL: srv.URL + "/v1", Model: "m", APIKey: key, HTTP: srv.Client()})
			out, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "hi"}})
			if err == nil {
				t.Fatalf("Complete = %q, want an error", out)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q contains %q", err, s)
				}
			}
		})
	}
}

func TestCompleteTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server only notices the client hanging up once the body
		// has been read, so read it before waiting like a stuck model.
		io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close must never wait on the handler
	c := New(Config{URL: srv.URL + "/v1", Model: "m", Timeout: 50 * time.Millisecond})

	start := time.Now()
	_, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "hi"}})
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if !strings.HasPrefix(err.Error(), "llm: ") {
		t.Errorf("error %q lacks the llm: prefix", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("Complete took %v with a 50ms timeout", elapsed)
	}
}

func TestNew(t *testing.T) {
	for _, url := range []string{"", "  "} {
		if c := New(Config{URL: url, Model: "m"}); c != nil {
			t.Errorf("New(URL %q) = %+v, want nil", url, c)
		}
	}
	var c *Client
	if c.Model() != "" {
		t.Errorf("nil Client Model() = %q", c.Model())
	}
	if _, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "hi"}}); err == nil {
		t.Error("nil Client Complete succeeded")
	}
	if _, err := c.Narrate(context.Background(), "x", nil); err == nil {
		t.Error("nil Client Narrate succeeded")
	}
	if got := New(Config{URL: "http://h/v1", Model: "llama3"}).Model(); got != "llama3" {
		t.Errorf("Model() = %q, want llama3", got)
	}
}
