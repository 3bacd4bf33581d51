package syslogd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// sink records deliveries, as the ingest path would store them.
type sink struct {
	mu     sync.Mutex
	byOrg  map[string][]string
	counts map[string]int
}

func (s *sink) deliver(_ context.Context, org string, lines []byte) (int, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := strings.Split(strings.TrimSuffix(string(lines), "\n"), "\n")
	s.byOrg[org] = append(s.byOrg[org], got...)
	return len(got), 0, nil
}

func (s *sink) count(outcome string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[outcome] += n
}

func (s *sink) lines(org string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.byOrg[org]...)
}

func selfSigned(t *testing.T) *tls.Config {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
}

func start(t *testing.T, routes []Route) (*Receiver, *sink) {
	s := &sink{byOrg: map[string][]string{}, counts: map[string]int{}}
	r, err := New(Config{Addr: "127.0.0.1:0", TLSAddr: "127.0.0.1:0", TLS: selfSigned(t), Routes: routes,
		Authorize: func(_ context.Context, key, org string) (string, error) {
			if key == "revoked" {
				return "", errors.New("API key revoked")
			}
			return "org_" + key + org, nil
		},
		Deliver: s.deliver, Count: s.count, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, s
}

func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

const line = "<86>Nov 21 10:00:00 web-01 sshd[1193]: Failed password for root from 203.0.113.9 port 52942 ssh2"

// Every transport delivers its messages whole, in order, to the
// organization of the route of its network.
func TestTransports(t *testing.T) {
	r, s := start(t, []Route{{Network: netip.MustParsePrefix("127.0.0.0/8"), Key: "a"}})
	tcp, tlsAddr := r.TCPAddrs()[0].String(), r.TCPAddrs()[1].String()
	multi := "<134>1 2026-11-21T10:00:00Z host app - - - first line\nsecond line"
	cases := []struct {
		name string
		send func() error
		want []string
	}{
		{"udp", func() error {
			c, err := net.Dial("udp", r.UDPAddr().String())
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.Write([]byte(line + "\n"))
			return err
		}, []string{line}},
		{"tcp newline framing", func() error {
			c, err := net.Dial("tcp", tcp)
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = io.WriteString(c, line+"\n"+line+" 2\r\n"+line+" 3")
			return err
		}, []string{line, line + " 2", line + " 3"}},
		{"tcp octet counting, a message holding a newline", func() error {
			c, err := net.Dial("tcp", tcp)
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = fmt.Fprintf(c, "%d %s%d %s", len(line), line, len(multi), multi)
			return err
		}, []string{line, strings.ReplaceAll(multi, "\n", " ")}},
		{"tls", func() error {
			c, err := tls.Dial("tcp", tlsAddr, &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = fmt.Fprintf(c, "%d %s", len(line), line)
			return err
		}, []string{line}},
	}
	seen := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.send(); err != nil {
				t.Fatal(err)
			}
			await(t, c.name, func() bool { return len(s.lines("org_a")) >= seen+len(c.want) })
			got := s.lines("org_a")[seen:]
			seen += len(c.want)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// The most specific route wins; "*" catches the rest; a network no route
// names is dropped and counted; a route whose key was revoked delivers
// nothing.
func TestRouting(t *testing.T) {
	routes, err := ParseRoutes("# devices\n127.0.0.0/8 a\n127.0.0.2/32 b org_client\n10.0.0.0/8 revoked\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{c: Config{Routes: routes}}
	for addr, want := range map[string]int{"127.0.0.1": 0, "127.0.0.2": 1, "10.1.2.3": 2, "192.0.2.1": -1, "::1": -1} {
		if got := r.route(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: route %d, want %d", addr, got, want)
		}
	}
	star, _ := ParseRoutes("* k\n10.0.0.0/8 j")
	r = &Receiver{c: Config{Routes: star}}
	if r.route(netip.MustParseAddr("192.0.2.1")) != 0 || r.route(netip.MustParseAddr("10.0.0.1")) != 1 || r.route(netip.MustParseAddr("2001:db8::1")) != 0 {
		t.Error("* is not the fallback")
	}
	for _, bad := range []string{"", "# only a comment", "10.0.0.0/33 k", "nonsense", "10.0.0.0/8 k org extra"} {
		if _, err := ParseRoutes(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}

	rcv, s := start(t, []Route{{Network: netip.MustParsePrefix("10.0.0.0/8"), Key: "a"}})
	c, _ := net.Dial("tcp", rcv.TCPAddrs()[0].String())
	io.WriteString(c, line+"\n")
	c.Close()
	await(t, "the unrouted count", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.counts["unrouted"] == 1 })

	rcv, s = start(t, []Route{{Network: netip.MustParsePrefix("127.0.0.0/8"), Key: "revoked"}})
	c, _ = net.Dial("udp", rcv.UDPAddr().String())
	c.Write([]byte(line))
	c.Close()
	await(t, "the refused count", func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.counts["refused"] == 1 })
}

// Hostile input: an overlong line is dropped whole and the connection goes
// on; a frame announcing more than MaxMessage is skipped.
func TestBounds(t *testing.T) {
	r, s := start(t, []Route{{Network: netip.MustParsePrefix("127.0.0.0/8"), Key: "a"}})
	c, err := net.Dial("tcp", r.TCPAddrs()[0].String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, strings.Repeat("x", MaxMessage+100)+"\n"+line+"\n")
	c.Close()
	await(t, "the line after the long one", func() bool { return len(s.lines("org_a")) == 1 })
	if got := s.lines("org_a"); got[0] != line {
		t.Fatalf("%q", got)
	}
	c, _ = net.Dial("tcp", r.TCPAddrs()[0].String())
	fmt.Fprintf(c, "%d %s%d %s", MaxMessage+1, strings.Repeat("y", MaxMessage+1), len(line), line)
	c.Close()
	await(t, "the frame after the long one", func() bool { return len(s.lines("org_a")) == 2 })
}

// A delivery that fails for a while (a full disk) keeps its messages for
// the next try, before those that came since; a failure that will not
// pass drops them, counted.
func TestHeldWhileDeliveryFails(t *testing.T) {
	errBusy := errors.New("the disk is full")
	var mu sync.Mutex
	failing, got, counts := 2, []string{}, map[string]int{}
	r, err := New(Config{Addr: "127.0.0.1:0", Routes: []Route{{Network: netip.MustParsePrefix("127.0.0.0/8"), Key: "a"}},
		Authorize: func(context.Context, string, string) (string, error) { return "org_a", nil },
		Deliver: func(_ context.Context, _ string, lines []byte) (int, int, error) {
			mu.Lock()
			defer mu.Unlock()
			if failing > 0 {
				failing--
				return 0, 0, errBusy
			}
			got = append(got, strings.Split(strings.TrimSuffix(string(lines), "\n"), "\n")...)
			return 0, 0, nil
		},
		Retry: func(err error) bool { return errors.Is(err, errBusy) },
		Count: func(o string, n int) { mu.Lock(); counts[o] += n; mu.Unlock() },
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for i := range 3 {
		c, _ := net.Dial("tcp", r.TCPAddrs()[0].String())
		fmt.Fprintf(c, "%s %d\n", line, i)
		c.Close()
		time.Sleep(1100 * time.Millisecond) // a delivery between each
	}
	await(t, "every message", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 3 })
	mu.Lock()
	defer mu.Unlock()
	for i, m := range got {
		if m != fmt.Sprintf("%s %d", line, i) {
			t.Fatalf("delivered %q, want them in order", got)
		}
	}
	if counts["failed"] != 0 {
		t.Fatalf("counts %v", counts)
	}
}
