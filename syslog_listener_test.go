package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// freePort is a loopback port free for TCP and UDP a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		if u, err := net.ListenPacket("udp", addr); err == nil {
			u.Close()
			return addr
		}
	}
	t.Fatal("no free port")
	return ""
}

// Devices send syslog straight to Garrison over UDP, TCP (octet counting
// and newline framing) and TLS; each network's messages land in the
// organization its route's key names, read into fields; a revoked key
// stops its route at once; a network no route names is dropped.
func TestSyslogListener(t *testing.T) {
	cfg := testConfig(t)
	s := startServer(t, cfg)
	base := "https://" + s.https + "/api"
	call := apiCaller(t, s.client, base)
	reg := call("POST", "/auth/register", "", map[string]any{"email": "ann@acme.test", "password": apitest.Password, "name": "Ann", "org": "Acme"})
	token := reg["token"].(string)
	newKey := func(scope string) (key, id string) {
		d := call("POST", "/api-keys", token, map[string]any{"name": "syslog " + scope, "scope": scope})["data"].(map[string]any)
		return d["key"].(string), d["id"].(string)
	}
	key, keyID := newKey("write")
	readKey, _ := newKey("read")
	if err := s.shutdown(); err != nil {
		t.Fatal(err)
	}

	routes := filepath.Join(t.TempDir(), "routes")
	os.WriteFile(routes, []byte("# loopback devices send as Acme\n127.0.0.1/32 "+key+"\n127.0.0.2/32 "+readKey+"\n"), 0o600)
	cfg.syslogAddr, cfg.syslogTLSAddr, cfg.syslogRoutes = freePort(t), freePort(t), routes
	s = startServer(t, cfg)
	call = apiCaller(t, s.client, "https://"+s.https+"/api")

	now := time.Now().UTC()
	stamp := now.Format(time.Stamp)
	ssh := func(n int) string {
		return fmt.Sprintf("<86>%s web-01 sshd[1193]: Failed password for root from 203.0.113.%d port 52942 ssh2", stamp, n)
	}
	send := func(network, addr, payload string) {
		t.Helper()
		var c net.Conn
		var err error
		if network == "tls" {
			c, err = tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
		} else {
			c, err = net.Dial(network, addr)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, payload)
		c.Close()
	}
	send("udp", cfg.syslogAddr, ssh(1))
	send("tcp", cfg.syslogAddr, ssh(2)+"\n"+ssh(3)+"\n")
	send("tcp", cfg.syslogAddr, fmt.Sprintf("%d %s", len(ssh(4)), ssh(4)))
	send("tls", cfg.syslogTLSAddr, fmt.Sprintf("%d %s", len(ssh(5)), ssh(5)))
	filterlog := fmt.Sprintf("<134>1 %s fw-01 filterlog 92653 - - 7,,,1000000102,vtnet0.5,match,block,in,4,0x0,,64,19008,0,DF,6,tcp,60,198.51.100.7,192.168.1.100,42970,80,0,S,523876198,,64240,,mss",
		now.Format(time.RFC3339))
	send("tls", cfg.syslogTLSAddr, filterlog+"\n")

	deadline := time.Now().Add(20 * time.Second)
	var list []any
	for time.Now().Before(deadline) {
		list = call("GET", "/events?source=syslog&limit=50", token, nil)["data"].([]any)
		if len(list) >= 6 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(list) != 6 {
		t.Fatalf("%d syslog events arrived, want 6", len(list))
	}
	got := map[string]bool{}
	for _, e := range list {
		f := e.(map[string]any)["fields"].(map[string]any)
		got[fmt.Sprint(f["src_ip"], " ", f["user"], " ", f["action"])] = true
	}
	for n := 1; n <= 5; n++ {
		if !got[fmt.Sprintf("203.0.113.%d root failure", n)] {
			t.Errorf("the message from 203.0.113.%d is missing: %v", n, got)
		}
	}
	if !got["198.51.100.7 <nil> block"] {
		t.Errorf("the filterlog line is missing: %v", got)
	}

	// A route whose key cannot write delivers nothing; after revoking the
	// writing key, its network's messages are refused too.
	send("udp", "127.0.0.2"+cfg.syslogAddr[strings.LastIndex(cfg.syslogAddr, ":"):], ssh(6))
	call("DELETE", "/api-keys/"+keyID, token, nil)
	send("tcp", cfg.syslogAddr, ssh(7)+"\n")
	time.Sleep(2500 * time.Millisecond) // two deliveries' worth
	if n := len(call("GET", "/events?source=syslog&limit=50", token, nil)["data"].([]any)); n != 6 {
		t.Fatalf("%d events after the refused routes, want 6", n)
	}
}

// A syslog listener without routes, or with a routes file that does not
// read, refuses to start, saying why.
func TestSyslogConfigRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "routes")
	os.WriteFile(bad, []byte("10.0.0.0/33 gk_x\n"), 0o600)
	for name, c := range map[string]struct {
		edit func(*config)
		want string
	}{
		"no routes":      {func(c *config) { c.syslogAddr = "127.0.0.1:0" }, "need --syslog-routes"},
		"a missing file": {func(c *config) { c.syslogTLSAddr, c.syslogRoutes = "127.0.0.1:0", bad+".gone" }, "--syslog-routes"},
		"a bad network":  {func(c *config) { c.syslogAddr, c.syslogRoutes = "127.0.0.1:0", bad }, "line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.addr, cfg.httpAddr = "127.0.0.1:0", ""
			c.edit(&cfg)
			err := serve(context.Background(), cfg, appOptions{passwordIterations: apitest.Iterations}, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("serve: %v, want %q", err, c.want)
			}
		})
	}
}
