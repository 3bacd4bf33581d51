package handlers

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRefusedBodiesAreAnswered: ingest refused for the in-flight cap is
// still an answer an HTTP/1.1 client reads after sending its whole body.
// Four such clients send 16 MiB each at once; every one reads 503 with
// Retry-After (before the server read the refused bodies out, the
// connection closed under the sender and it read no answer).
func TestRefusedBodiesAreAnswered(t *testing.T) {
	a, srv, keyA, _ := budgetAPI(t, 8)
	a.ingestBudget.acquire("org_elsewhere", 8*ingestStep) // the whole budget held
	body := ingestBody(MaxIngestBodyBytes)
	var wg sync.WaitGroup
	results := make([]string, 4)
	for i := range results {
		wg.Go(func() { results[i] = sendWholeThenRead(srv.Listener.Addr().String(), keyA, body) })
	}
	wg.Wait()
	for i, got := range results {
		if got != "503 Retry-After=1" {
			t.Errorf("client %d: %s", i, got)
		}
	}
}

// sendWholeThenRead is an HTTP/1.1 client that writes the whole request
// before it reads anything, and says what it read.
func sendWholeThenRead(addr, key, body string) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	w := bufio.NewWriterSize(conn, 64<<10)
	fmt.Fprintf(w, "POST /api/events HTTP/1.1\r\nHost: garrison.test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", key, len(body))
	if _, err := w.WriteString(body); err != nil {
		return "send: " + err.Error()
	}
	if err := w.Flush(); err != nil {
		return "send: " + err.Error()
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "read: " + err.Error()
	}
	res.Body.Close()
	return strings.TrimSpace(fmt.Sprintf("%d Retry-After=%s", res.StatusCode, res.Header.Get("Retry-After")))
}
