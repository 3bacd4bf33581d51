package contact

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestMetadataRefused(t *testing.T) {
	s := NewSender(SenderOptions{Timeout: 5 * time.Second, AllowLoopback: true})
	for _, raw := range []string{"http://169.254.169.254/latest/meta-data/", "https://[fe80::1]/", "http://[::ffff:169.254.169.254]/",
		"http://100.100.100.200/", "http://[fd00:ec2::254]/", "http://[64:ff9b::a9fe:a9fe]/", "http://0.0.0.0/", "http://[::]/"} {
		start := time.Now()
		res := s.Send(context.Background(), Endpoint{Kind: Slack, URL: raw}, sample(), time.Now())
		var blocked *blockedError
		// The guard runs before connect(2): a refusal is immediate, never
		// a timeout or an unreachable network.
		if !errors.As(res.Err, &blocked) || res.Retry || res.Status != 0 || time.Since(start) > time.Second {
			t.Fatalf("%s: result %+v after %s", raw, res, time.Since(start))
		}
		if !strings.Contains(res.Err.Error(), blocked.addr.String()) || !strings.Contains(res.Err.Error(), "refusing to connect") {
			t.Fatalf("%s: error %q does not name the address", raw, res.Err)
		}
	}
}

func TestLoopback(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	roots := (&receiver{srv: srv}).roots()

	refused := NewSender(SenderOptions{RootCAs: roots}).Send(context.Background(), Endpoint{Kind: Slack, URL: srv.URL}, sample(), time.Now())
	if res := refused; res.Err == nil || res.Retry || !strings.Contains(res.Err.Error(), "127.0.0.1") || hits.Load() != 0 {
		t.Fatalf("loopback not refused: %+v, %d requests", res, hits.Load())
	}
	allowed := NewSender(SenderOptions{RootCAs: roots, AllowLoopback: true}).Send(context.Background(), Endpoint{Kind: Slack, URL: srv.URL}, sample(), time.Now())
	if !allowed.OK() || hits.Load() != 1 {
		t.Fatalf("loopback allowed: %+v, %d requests", allowed, hits.Load())
	}
}

func TestRefusedAddresses(t *testing.T) {
	tests := []struct {
		addr          string
		allowLoopback bool
		refused       bool
	}{
		{"127.0.0.1", false, true},
		{"127.8.9.10", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"127.0.0.1", true, false},
		{"::1", true, false},
		{"169.254.169.254", true, true},
		{"169.254.0.1", true, true},
		{"fe80::1", true, true},
		{"fd00:ec2::254", true, true},
		{"100.100.100.200", true, true},
		{"64:ff9b::a9fe:a9fe", true, true},
		{"64:ff9b::7f00:1", false, true},
		{"0.0.0.0", true, true},
		{"0.1.2.3", true, true},
		{"::", true, true},
		{"224.0.0.1", true, true},
		{"239.255.255.250", true, true},
		{"ff02::1", true, true},
		{"255.255.255.255", true, true},
		{"10.0.0.5", false, false}, // on-premises chat is allowed
		{"172.16.4.4", false, false},
		{"192.168.1.10", false, false},
		{"fd12:3456::1", false, false},
		{"100.64.0.1", false, false},
		{"203.0.113.9", false, false},
		{"2001:db8::1", false, false},
		{"64:ff9b::cb00:7109", false, false},
	}
	for _, tc := range tests {
		why := refused(netip.MustParseAddr(tc.addr).Unmap(), tc.allowLoopback)
		if (why != "") != tc.refused {
			t.Errorf("%s (loopback allowed %v): refused %q, want refused %v", tc.addr, tc.allowLoopback, why, tc.refused)
		}
	}
	if err := guard(false)("tcp", "[fe80::1%eth0]:443", nil); err == nil || !strings.Contains(err.Error(), "fe80::1") {
		t.Errorf("zoned link-local: %v", err)
	}
	if err := guard(false)("tcp", "not-an-address", nil); err == nil {
		t.Error("an unparsable address passed")
	}
}
