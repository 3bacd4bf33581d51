package contact

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestAnswers(t *testing.T) {
	now := time.Now()
	tests := []struct {
		status     int
		header     map[string]string
		ok, retry  bool
		retryAfter time.Duration
	}{
		{200, nil, true, false, 0},
		{202, nil, true, false, 0},
		{204, nil, true, false, 0},
		{302, map[string]string{"Location": "/elsewhere"}, false, false, 0},
		{400, nil, false, false, 0},
		{401, nil, false, false, 0},
		{404, nil, false, false, 0},
		{410, nil, false, false, 0},
		{408, nil, false, true, 0},
		{429, map[string]string{"Retry-After": "7"}, false, true, 7 * time.Second},
		{429, map[string]string{"Retry-After": "86400"}, false, true, time.Hour},
		{500, nil, false, true, 0},
		{502, nil, false, true, 0},
		{503, map[string]string{"Retry-After": now.Add(2 * time.Minute).UTC().Format(http.TimeFormat)}, false, true, 2 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			rc := newReceiver(t, tc.status, tc.header, "answer from the receiver")
			res := rc.sender().Send(context.Background(), Endpoint{Kind: Slack, URL: rc.srv.URL + "/hook"}, sample(), now)
			if res.Status != tc.status || res.OK() != tc.ok || res.Retry != tc.retry || (res.Err == nil) != tc.ok {
				t.Fatalf("result %+v", res)
			}
			// An HTTP date has one-second precision.
			if d := res.RetryAfter - tc.retryAfter; d < -time.Second || d > time.Second {
				t.Fatalf("RetryAfter %s, want %s", res.RetryAfter, tc.retryAfter)
			}
			if res.Body != "answer from the receiver" && tc.status != 204 {
				t.Fatalf("body %q", res.Body)
			}
			if !tc.ok && !strings.Contains(res.Err.Error(), "answer from the receiver") {
				t.Fatalf("error %q does not quote the answer", res.Err)
			}
			if got := rc.requests(); len(got) != 1 || got[0].Path != "/hook" {
				t.Fatalf("receiver took %d requests (a redirect followed?)", len(got))
			}
		})
	}
}

func TestNoAnswerIsRetried(t *testing.T) {
	rc := newReceiver(t, 200, nil, "")
	s := rc.sender()
	url := rc.srv.URL + "/services/T0/B0/SECRETPATH"
	rc.srv.Close()
	res := s.Send(context.Background(), Endpoint{Kind: Slack, URL: url}, sample(), time.Now())
	if res.Status != 0 || !res.Retry || res.Err == nil || res.OK() {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(res.Err.Error(), "SECRETPATH") {
		t.Fatalf("the error quotes the URL's path: %v", res.Err)
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: the handler returns before Close waits for it
	pool := (&receiver{srv: srv}).roots()
	s := NewSender(SenderOptions{Timeout: 200 * time.Millisecond, RootCAs: pool, AllowLoopback: true})
	start := time.Now()
	res := s.Send(context.Background(), Endpoint{Kind: Slack, URL: srv.URL + "/?token=SECRET"}, sample(), time.Now())
	if res.Status != 0 || !res.Retry || res.Err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("result %+v after %s", res, time.Since(start))
	}
	if strings.Contains(res.Err.Error(), "SECRET") {
		t.Fatalf("the error quotes the URL's query: %v", res.Err)
	}
}

func TestTLS(t *testing.T) {
	t.Run("untrusted certificate", func(t *testing.T) {
		rc := newReceiver(t, 200, nil, "")
		s := NewSender(SenderOptions{AllowLoopback: true}) // the system roots do not know httptest's
		res := s.Send(context.Background(), Endpoint{Kind: Slack, URL: rc.srv.URL}, sample(), time.Now())
		if res.Status != 0 || res.Err == nil || len(rc.requests()) != 0 {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("TLS 1.1 refused", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		srv.Config.ErrorLog = quiet
		srv.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		s := NewSender(SenderOptions{RootCAs: (&receiver{srv: srv}).roots(), AllowLoopback: true})
		res := s.Send(context.Background(), Endpoint{Kind: Slack, URL: srv.URL}, sample(), time.Now())
		if res.Status != 0 || res.Err == nil || !strings.Contains(res.Err.Error(), "version") {
			t.Fatalf("result %+v", res)
		}
	})
}

func TestRefusedBeforeSending(t *testing.T) {
	s := NewSender(SenderOptions{})
	tests := []struct {
		name string
		ep   Endpoint
		m    Message
	}{
		{"email", Endpoint{Kind: Email}, sample()},
		{"unknown kind", Endpoint{Kind: "fax", URL: "https://fax.example"}, sample()},
		{"unknown event", Endpoint{Kind: Slack, URL: "https://hooks.slack.example/x"}, Message{Event: "opened"}},
		{"bad URL", Endpoint{Kind: Slack, URL: "ftp://hooks.example/x"}, sample()},
		{"webhook without secret", Endpoint{Kind: Webhook, URL: "https://siem.example/in"}, sample()},
		{"pagerduty without routing key", Endpoint{Kind: PagerDuty}, sample()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.Send(context.Background(), tc.ep, tc.m, time.Now())
			if res.Status != 0 || res.Retry || res.Err == nil {
				t.Fatalf("result %+v", res)
			}
		})
	}
	if res := s.Send(context.Background(), Endpoint{Kind: Email}, sample(), time.Now()); !errors.Is(res.Err, errEmail) ||
		res.Err.Error() != "email is delivered by the mailer" {
		t.Fatalf("email: %v", res.Err)
	}
}

func TestAnswerIsBounded(t *testing.T) {
	long := strings.Repeat("é", 100_000) // 200 KB, beyond what is read
	rc := newReceiver(t, 500, nil, "x"+long)
	res := rc.sender().Send(context.Background(), Endpoint{Kind: Slack, URL: rc.srv.URL}, sample(), time.Now())
	if len(res.Body) > maxAnswer || len(res.Body) < maxAnswer-3 || !utf8.ValidString(res.Body) || !strings.HasPrefix(res.Body, "xé") {
		t.Fatalf("body of %d bytes, valid %v", len(res.Body), utf8.ValidString(res.Body))
	}
	if !res.Retry || utf8.RuneCountInString(res.Err.Error()) > 260 {
		t.Fatalf("result %+v", res)
	}
}

func TestAnswer(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"short", []byte("ok"), "ok"},
		{"invalid UTF-8", []byte("a\xffb"), "a\uFFFDb"},
		{"cut inside a rune", append([]byte(strings.Repeat("a", 511)), "é"...), strings.Repeat("a", 511)},
		{"invalid bytes at the cut", append([]byte(strings.Repeat("a", 511)), 0xff, 0xff), strings.Repeat("a", 511)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := answer(tc.in)
			if got != tc.want || len(got) > maxAnswer || !utf8.ValidString(got) {
				t.Fatalf("answer = %q (%d bytes)", got, len(got))
			}
		})
	}
}
