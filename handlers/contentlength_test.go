package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Answers written whole say their length, so that net/http sends a large
// one as it is instead of in chunks: an events page, an alert list, an
// error.
func TestAnswersSayTheirLength(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	at := e.Clock.Now().Add(-time.Minute).Format(time.RFC3339)
	evs := make([]map[string]any, 50)
	for i := range evs {
		evs[i] = map[string]any{"type": "threat_detected", "severity": "high", "source": "ids", "asset": "web-01", "timestamp": at,
			"message": strings.Repeat("a message long enough for the page to pass net/http's buffer ", 4)}
	}
	e.Do("POST", "/api/events", key, map[string]any{"events": evs}).Must(t, http.StatusCreated)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/api/events?limit=50", http.StatusOK},
		{"/api/alerts", http.StatusOK},
		{"/api/events?bogus=1", http.StatusBadRequest},
	} {
		r := e.Do("GET", c.path, key, nil)
		if r.Status != c.status {
			t.Fatalf("%s: %d", c.path, r.Status)
		}
		if got := r.Header.Get("Content-Length"); got != strconv.Itoa(len(r.Raw)) {
			t.Errorf("%s: Content-Length %q for a body of %d bytes (Transfer-Encoding %q)", c.path, got, len(r.Raw), r.Header.Get("Transfer-Encoding"))
		}
	}
	if r := e.Do("GET", "/api/events?limit=50", key, nil); len(r.Raw) < 8<<10 {
		t.Fatalf("the events page is %d bytes: too small to have been chunked", len(r.Raw))
	}
}
