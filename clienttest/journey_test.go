// Package clienttest drives a real Garrison server with the client that
// oapi-codegen generates from docs/openapi.json (package client): the
// contract is one a generator can use, as an integrator would.
package clienttest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"garrison/clienttest/client"
)

// TestGeneratedClientJourney: the generated client signs up, signs in,
// makes an API key, sends events with it, reads them back with the
// alerts and the dashboard they make, and reads the server's refusals
// as the document's error types, against Garrison built from this
// repository and serving a fresh data directory on loopback.
func TestGeneratedClientJourney(t *testing.T) {
	base, httpClient := startServer(t)
	c, err := client.NewClientWithResponses(base+"/api", client.WithHTTPClient(httpClient))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	org := "Acme MSP"
	reg, err := c.RegisterWithResponse(ctx, nil, client.RegisterJSONRequestBody{
		Email: "ann@acme.example", Password: "correct horse battery", Name: "Ann", Org: &org,
	})
	expect(t, "register", reg, err, http.StatusCreated)
	if reg.JSON201.User.Email != "ann@acme.example" || reg.JSON201.User.Role != client.RoleAdmin {
		t.Errorf("registered %+v, want ann@acme.example as admin", reg.JSON201.User)
	}

	login, err := c.LoginWithResponse(ctx, nil, client.LoginJSONRequestBody{Email: "ann@acme.example", Password: "correct horse battery"})
	expect(t, "login", login, err, http.StatusOK)
	if login.JSON200.Token == nil {
		t.Fatal("login: no token")
	}
	session := bearer(*login.JSON200.Token)

	made, err := c.CreateAPIKeyWithResponse(ctx, nil, client.CreateAPIKeyJSONRequestBody{Name: "sensor", Scope: client.ScopeWrite}, session)
	expect(t, "create an API key", made, err, http.StatusCreated)
	key := made.JSON201.Data
	if key.Scope != client.ScopeWrite || key.Status != client.ApiKeyCreatedViewStatusActive || key.ExpiresAt != nil {
		t.Errorf("key %+v, want an active write key that does not expire", key)
	}
	sensor := bearer(key.Key)

	now := time.Now().UTC().Truncate(time.Second)
	var batch client.IngestRequest // one event, or a batch of them
	err = batch.FromEventBatch(client.EventBatch{Events: []client.EventInput{
		{Type: client.EventTypeThreatDetected, Severity: client.SeverityCritical, Timestamp: now, Source: "edr",
			Asset: "ws-07", Message: "Emotet CnC beacon", Indicator: ptr("185.220.101.4")},
		{Type: client.EventTypeBlockedConnection, Severity: client.SeverityLow, Timestamp: now, Source: "fw-edge-01",
			Asset: "10.0.0.21", Message: "Blocked outbound RDP to the internet",
			Details: &map[string]any{"dest_port": 3389, "rule": "deny-rdp-out"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ingested, err := c.IngestEventsWithResponse(ctx, nil, batch, sensor)
	expect(t, "ingest", ingested, err, http.StatusCreated)
	if ingested.JSON201.Data.Count != 2 || len(ingested.JSON201.Data.Ids) != 2 {
		t.Errorf("ingested %+v, want 2 events", ingested.JSON201.Data)
	}

	severe := client.SeverityFilter{client.SeverityHigh, client.SeverityCritical} // a comma list
	events, err := c.ListEventsWithResponse(ctx, &client.ListEventsParams{Severity: &severe}, session)
	expect(t, "list events", events, err, http.StatusOK)
	if n := len(events.JSON200.Data); n != 1 || events.JSON200.Data[0].Id != ingested.JSON201.Data.Ids[0] ||
		events.JSON200.Data[0].Indicator == nil || *events.JSON200.Data[0].Indicator != "185.220.101.4" {
		t.Errorf("high and critical events %+v, want the beacon alone", events.JSON200.Data)
	}
	all, err := c.ListEventsWithResponse(ctx, nil, session)
	expect(t, "list all events", all, err, http.StatusOK)
	if all.JSON200.Pagination.Total != 2 {
		t.Errorf("%d events, want 2", all.JSON200.Pagination.Total)
	}

	open := client.AlertStatusOpen
	alerts, err := c.ListAlertsWithResponse(ctx, &client.ListAlertsParams{Status: &open}, session)
	expect(t, "list alerts", alerts, err, http.StatusOK)
	if len(alerts.JSON200.Data) != 1 || alerts.JSON200.Data[0].Severity != client.SeverityCritical {
		t.Errorf("open alerts %+v, want the beacon's", alerts.JSON200.Data)
	}

	overview, err := c.OverviewWithResponse(ctx, nil, session)
	expect(t, "dashboard overview", overview, err, http.StatusOK)
	ov := overview.JSON200.Data
	if ov.OpenAlerts != 1 || len(ov.RecentAlerts) != 1 || ov.Events.N24h.Total != 2 {
		t.Errorf("overview %+v, want 1 open alert and 2 events in 24 hours", ov)
	}

	// Refusals decode as the document's error types.
	refused, err := c.ListAPIKeysWithResponse(ctx, nil, sensor)
	expect(t, "list API keys with a write key", refused, err, http.StatusForbidden)
	if refused.JSON403.Code != client.ForbiddenCodeForbidden || refused.JSON403.Success {
		t.Errorf("403 %+v, want forbidden", refused.JSON403)
	}
	var bad client.IngestRequest
	if err := bad.FromEventInput(client.EventInput{Type: client.EventTypeThreatDetected, Severity: "urgent",
		Timestamp: now, Source: "edr", Asset: "ws-07", Message: "m"}); err != nil {
		t.Fatal(err)
	}
	invalid, err := c.IngestEventsWithResponse(ctx, nil, bad, sensor)
	expect(t, "ingest a bad severity", invalid, err, http.StatusBadRequest)
	if invalid.JSON400.Code != client.ValidationErrorCodeValidationError || !slices.Contains(invalid.JSON400.Fields, "severity") {
		t.Errorf("400 %+v, want a validation_error naming severity", invalid.JSON400)
	}
	stranger, err := c.GetMeWithResponse(ctx, nil, bearer("svc_live_not-a-key"))
	expect(t, "me with a made-up key", stranger, err, http.StatusUnauthorized)
	if stranger.JSON401.Code != client.UnauthorizedCodeUnauthorized {
		t.Errorf("401 %+v, want unauthorized", stranger.JSON401)
	}
}

// expect fails the test unless the call went through with the status
// the step expects and its body decoded into the type the document gives
// that status (the response's JSON<status> field): a status the document
// does not list, or a body of another content type, leaves it nil.
func expect(t *testing.T, step string, res response, err error, status int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if res.StatusCode() != status {
		t.Fatalf("%s: %d, want %d: %s", step, res.StatusCode(), status, body(res))
	}
	field := reflect.ValueOf(res).Elem().FieldByName(fmt.Sprintf("JSON%d", status))
	if !field.IsValid() {
		t.Fatalf("%s: the document gives no application/json answer for %d", step, status)
	}
	if field.IsNil() {
		t.Fatalf("%s: %d did not decode as the document's type: %s", step, status, body(res))
	}
}

// response is what every generated ...Response has.
type response interface {
	StatusCode() int
	ContentType() string
}

func body(res response) string {
	return string(reflect.ValueOf(res).Elem().FieldByName("Body").Bytes())
}

func bearer(credential string) client.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+credential)
		return nil
	}
}

func ptr[T any](v T) *T { return &v }

// startServer builds Garrison from the repository as its README builds
// the release binary, serves a fresh data directory over HTTPS on a
// loopback port, and returns the server's address and an HTTP client
// that trusts the certificate the server made.
func startServer(t *testing.T) (string, *http.Client) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "garrison")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	data := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "https://" + addr
	var log serverLog
	srv := exec.Command(bin, "serve", "--data", data, "--addr", addr, "--http-addr", "", "--base-url", base)
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})

	// The certificate is made at the first start; the generated client's
	// health call says when the server answers.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if pem, err := os.ReadFile(filepath.Join(data, "tls-cert.pem")); err == nil {
			pool := x509.NewCertPool()
			if pool.AppendCertsFromPEM(pem) {
				hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
				c, err := client.NewClientWithResponses(base+"/api", client.WithHTTPClient(hc))
				if err != nil {
					t.Fatal(err)
				}
				if h, err := c.HealthWithResponse(t.Context()); err == nil && h.JSON200 != nil {
					return base, hc
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the server did not answer at %s within 30 s", base)
	return "", nil
}

// serverLog holds the server's output while the process writes it.
type serverLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
