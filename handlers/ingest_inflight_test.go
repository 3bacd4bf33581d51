package handlers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// TestIngestInflightCap: while one body holds the ingest budget, a body
// that does not fit is refused with 503 unavailable and Retry-After, before
// it is read; once the first is done, the same body is taken.
func TestIngestInflightCap(t *testing.T) {
	e := newEnv(t, func(c *apitest.Config) { c.IngestInflight = 3000 })
	admin := e.Register("ann@acme.test", "Acme")
	event, _ := json.Marshal(map[string]any{"events": []any{ev(e, "threat_detected", "low", "ws-1", "m", e.Clock.Now())}})
	body := string(event) + strings.Repeat(" ", 1000-len(event)) // 1000 bytes: 2500 + 1000 do not fit in 3000
	post := func(r io.Reader, size int64) *http.Response {
		req, _ := http.NewRequest("POST", e.Server.URL+"/api/events", r)
		req.ContentLength = size
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+admin.Token)
		res, err := e.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// The first body is announced at 2500 bytes and sent slowly: it holds
	// that much of the budget until it is complete.
	slow, feed := io.Pipe()
	defer feed.Close()
	first := make(chan *http.Response, 1)
	go func() { first <- post(slow, 2500) }()
	feed.Write([]byte(`{"events":[`)) // the handler is now reading it
	var refused *http.Response
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if refused = post(strings.NewReader(body), int64(len(body))); refused.StatusCode == http.StatusServiceUnavailable {
			break
		}
		refused.Body.Close()
	}
	var answer map[string]any
	json.NewDecoder(refused.Body).Decode(&answer)
	refused.Body.Close()
	if refused.StatusCode != http.StatusServiceUnavailable || answer["code"] != "unavailable" || refused.Header.Get("Retry-After") != "1" {
		t.Fatalf("a body past the budget: %d %v, Retry-After %q", refused.StatusCode, answer, refused.Header.Get("Retry-After"))
	}
	rest := string(event[len(`{"events":[`):])
	feed.Write([]byte(rest + strings.Repeat(" ", 2500-len(event))))
	feed.Close()
	if res := <-first; res.StatusCode != http.StatusCreated {
		t.Fatalf("the slow body: %d", res.StatusCode)
	}
	if res := post(strings.NewReader(body), int64(len(body))); res.StatusCode != http.StatusCreated {
		t.Fatalf("after the budget came back: %d", res.StatusCode)
	}
}
