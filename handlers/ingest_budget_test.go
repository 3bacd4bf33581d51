package handlers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"garrison/account"
	"garrison/actor"
	"garrison/store"
	"garrison/store/storetest"
)

// budgetAPI is the API over a real store with an ingest budget of steps
// steps, and a write key for each of two organizations.
func budgetAPI(t *testing.T, steps int64) (a *API, srv *httptest.Server, keyA, keyB string) {
	t.Helper()
	st := storetest.Open(t)
	key := func(email string) string {
		u, err := st.Register(t.Context(), store.NewAccount{Email: email, Name: "N", PasswordHash: "x", OrgName: email,
			Plan: account.PlanStarter, Verify: store.UserToken{Hash: []byte(email), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)},
			VerifyMail: store.Mail{To: email, Subject: "s", Body: "b"}})
		if err != nil {
			t.Fatal(err)
		}
		_, secret, err := account.CreateKey(t.Context(), st, account.NewKey{OrgID: u.OrgID, Name: "w", Scope: actor.ScopeWrite}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	keyA, keyB = key("a@a.test"), key("b@b.test")
	a = New(Deps{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, IngestInflight: steps * ingestStep})
	srv = httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return a, srv, keyA, keyB
}

func ingestBody(size int) string {
	ev, _ := json.Marshal(map[string]any{"events": []any{map[string]string{"type": "threat_detected", "severity": "low",
		"timestamp": time.Now().UTC().Format(time.RFC3339), "source": "ids", "asset": "ws-1", "message": "m"}}})
	return string(ev) + strings.Repeat(" ", size-len(ev))
}

func postIngest(t *testing.T, srv *httptest.Server, key, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/api/events", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestIngestBudgetRefusesPastTheCap: with the budget held by others, a body
// is refused with 503 unavailable and Retry-After, and taken once it frees.
func TestIngestBudgetRefusesPastTheCap(t *testing.T) {
	a, srv, keyA, _ := budgetAPI(t, 8)
	body := ingestBody(3 * ingestStep / 2) // two steps
	a.ingestBudget.acquire("org_elsewhere", 4*ingestStep)
	a.ingestBudget.acquire("org_further", 3*ingestStep) // one step left
	res := postIngest(t, srv, keyA, body)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("past the cap: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	a.ingestBudget.release("org_further", 3*ingestStep)
	if res := postIngest(t, srv, keyA, body); res.StatusCode != http.StatusCreated {
		t.Fatalf("after the budget freed: %d", res.StatusCode)
	}
	if a.ingestBudget.used != 4*ingestStep || a.ingestBudget.byOrg["org_elsewhere"] != 4*ingestStep || len(a.ingestBudget.byOrg) != 1 {
		t.Fatalf("the budget leaked: %d used, %v", a.ingestBudget.used, a.ingestBudget.byOrg)
	}
}

// TestIngestBudgetShare: one organization holds at most half the budget,
// so another's ingest still goes through.
func TestIngestBudgetShare(t *testing.T) {
	a, srv, keyA, keyB := budgetAPI(t, 128) // 32 MiB: a share of 16 MiB
	var org string
	a.Store.DB().QueryRow(`SELECT org_id FROM users WHERE email = 'a@a.test'`).Scan(&org)
	a.ingestBudget.acquire(org, 64*ingestStep-ingestStep) // all of A's share but one step
	body := ingestBody(3 * ingestStep / 2)
	if res := postIngest(t, srv, keyA, body); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("past its share: %d", res.StatusCode)
	}
	if res := postIngest(t, srv, keyB, body); res.StatusCode != http.StatusCreated {
		t.Fatalf("another organization: %d", res.StatusCode)
	}
}

// TestStalledUploadHoldsWhatItSent: a chunked body that stalls after a few
// bytes holds one step of the budget, not the largest body's size, so
// other senders go on.
func TestStalledUploadHoldsWhatItSent(t *testing.T) {
	_, srv, keyA, keyB := budgetAPI(t, 8)
	var stalled []net.Conn
	for range 3 {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\n"+
			"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"eve\r\n", keyA)
		stalled = append(stalled, conn)
	}
	// Whichever order the server takes them in, three stalled uploads and
	// this body (two steps) fit in eight steps.
	if res := postIngest(t, srv, keyB, ingestBody(3*ingestStep/2)); res.StatusCode != http.StatusCreated {
		t.Fatalf("behind three stalled uploads: %d", res.StatusCode)
	}
	for _, conn := range stalled {
		io.WriteString(conn, "0\r\n\r\n") // end the bodies: malformed JSON
		if res, err := http.ReadResponse(bufio.NewReader(conn), nil); err != nil || res.StatusCode != http.StatusBadRequest {
			t.Fatalf("a stalled upload ended: %v %v", res, err)
		}
	}
}
