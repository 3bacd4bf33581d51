package main

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// TestNotificationSurvivesSIGKILL kills the server while a receiver holds
// a delivery unanswered: after the restart that delivery is made again
// (same webhook-id), every alert acknowledged with 201 before the kill is
// delivered, each under one webhook-id however often, and the delivery
// whose 2xx the server had recorded is not sent again.
func TestNotificationSurvivesSIGKILL(t *testing.T) {
	bin := buildRelease(t)
	rc := apitest.NewReceiver(t)
	var mu sync.Mutex
	hold := make(chan struct{}) // closed when the held request may be answered
	first := ""
	rc.Respond = func(n int, r apitest.Request) (int, map[string]string) {
		mu.Lock()
		if n == 0 {
			first = r.Header.Get("webhook-id")
		}
		mu.Unlock()
		if n == 1 { // the second delivery hangs until the server is gone
			<-hold
			return http.StatusServiceUnavailable, nil
		}
		return http.StatusOK, nil
	}
	caFile := filepath.Join(t.TempDir(), "receiver.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Server.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := fmt.Sprintf("https://localhost:%d", port)
	var log serverLog
	start := func() *exec.Cmd {
		srv := exec.Command(bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--http-addr", "",
			"--base-url", base, "--notify-allow-loopback", "--notify-ca-file", caFile)
		srv.Stdout, srv.Stderr = &log, &log
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	srv := start()
	t.Cleanup(func() {
		if srv.ProcessState == nil {
			srv.Process.Signal(os.Interrupt)
			srv.Wait()
		}
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	client := waitServing(t, base, filepath.Join(data, selfSignedCert))
	call := apiCaller(t, client, base+"/api")
	reg := call("POST", "/auth/register", "", map[string]any{"email": "ann@acme.test", "password": apitest.Password, "name": "Ann", "org": "Acme"})
	token := reg["token"].(string)
	key := call("POST", "/api-keys", token, map[string]any{"name": "sensor", "scope": "write"})["data"].(map[string]any)["key"].(string)
	hook := call("POST", "/notification-channels", token, map[string]any{"name": "SIEM", "kind": "webhook", "url": rc.URL("/in")})
	hookID := hook["data"].(map[string]any)["id"].(string)
	for _, r := range call("GET", "/notification-rules", token, nil)["data"].([]any) {
		call("DELETE", "/notification-rules/"+r.(map[string]any)["id"].(string), token, nil)
	}
	call("POST", "/notification-rules", token, map[string]any{"name": "All critical", "min_severity": "critical", "channels": []string{hookID}})
	critical := func(asset string) {
		call("POST", "/events", key, map[string]any{"events": []map[string]any{{"type": "threat_detected", "severity": "critical",
			"timestamp": time.Now().UTC().Format(time.RFC3339), "source": "edr", "asset": asset, "message": "Ransomware beacon"}}})
	}
	critical("ws-01")
	rc.Wait(t, 1, 20*time.Second)
	waitDelivered(t, call, token, 1) // its 200 is written down
	critical("ws-02")
	rc.Wait(t, 2, 20*time.Second) // held: the receiver has not answered
	critical("ws-03")             // acknowledged, queued behind nothing: may or may not go before the kill
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srv.Wait()
	close(hold)

	srv = start()
	waitServing(t, base, filepath.Join(data, selfSignedCert))
	deadline := time.Now().Add(60 * time.Second)
	for {
		byAsset := map[string][]string{}
		for _, r := range rc.Requests() {
			var body struct {
				Data struct{ Alerts []struct{ Asset string } }
			}
			json.Unmarshal(r.Body, &body)
			if len(body.Data.Alerts) == 1 {
				byAsset[body.Data.Alerts[0].Asset] = append(byAsset[body.Data.Alerts[0].Asset], r.Header.Get("webhook-id"))
			}
		}
		done := len(byAsset["ws-02"]) >= 2 && len(byAsset["ws-03"]) >= 1
		if done || time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			if len(byAsset["ws-01"]) != 1 || byAsset["ws-01"][0] != first {
				t.Fatalf("the delivery answered 200 before the kill was sent %d times: %v", len(byAsset["ws-01"]), byAsset)
			}
			if !done {
				t.Fatalf("after the restart: %v", byAsset)
			}
			if byAsset["ws-02"][0] != byAsset["ws-02"][1] {
				t.Fatalf("the repeated delivery changed its webhook-id: %v", byAsset["ws-02"])
			}
			// ws-03 went out as the server died: once, or twice if its 2xx
			// came back before the kill but after the server's last write.
			if ids := byAsset["ws-03"]; len(ids) > 2 || (len(ids) == 2 && ids[0] != ids[1]) {
				t.Fatalf("ws-03 delivered as %v", ids)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDelivered waits until the delivery log counts n delivered.
func waitDelivered(t *testing.T, call func(method, path, cred string, body any) map[string]any, token string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		log := call("GET", "/notifications/deliveries?status=delivered", token, nil)
		if total := log["pagination"].(map[string]any)["total"].(float64); int(total) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d deliveries delivered", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
