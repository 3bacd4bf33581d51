package contact

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

const (
	defaultTimeout = 10 * time.Second
	maxRead        = 64 << 10 // of an answer; more is not worth waiting for
	userAgent      = "Garrison-Notifier/1"
)

// Sender sends messages over HTTP.
type Sender struct {
	client *http.Client
}

// SenderOptions configure a Sender.
type SenderOptions struct {
	Timeout       time.Duration  // per attempt; default 10 s
	RootCAs       *x509.CertPool // nil: the system roots (tests pass their receiver's)
	AllowLoopback bool           // allow 127.0.0.0/8 and ::1 receivers (tests, or an operator who means it)
}

// NewSender builds a sender with a client of its own: TLS 1.2 at least,
// no redirects followed, no proxy from the environment (a proxy would
// connect for us, past the guard), and a dialer that refuses link-local,
// unspecified, multicast and, unless allowed, loopback addresses when it
// connects.
func NewSender(o SenderOptions) *Sender {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: guard(o.AllowLoopback)}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs},
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxRead,
	}
	return &Sender{client: &http.Client{
		Transport: transport,
		Timeout:   timeout,
		// A receiver that moved must be configured anew: following it
		// would send the payload somewhere the admin never named.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Send makes one attempt: builds the payload, POSTs it, reads at most
// 64 KiB of the answer and classifies it. A message that cannot be built
// or a URL that will never do fails without a retry.
func (s *Sender) Send(ctx context.Context, ep Endpoint, m Message, now time.Time) Result {
	body, header, err := Payload(ep, m, now)
	if err != nil {
		return Result{Err: err}
	}
	target := ep.URL
	if ep.Kind == PagerDuty {
		target = pagerDutyEndpoint(ep)
	}
	if msg := CheckURL(target); msg != "" {
		return Result{Err: fmt.Errorf("receiver URL %s", msg)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Result{Err: errors.New("receiver URL cannot be requested")} // the error would quote the URL
	}
	req.Header = header
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		return noAnswer(req.URL.Host, err)
	}
	defer resp.Body.Close()
	// An answer cut short still has its status, which is what counts.
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxRead))
	return classify(resp.StatusCode, resp.Header, raw, now)
}

// noAnswer is an attempt that got no HTTP answer. Its error names the
// host, never the URL: chat and workflow URLs carry their secret in the
// path or query. A refused address is not retried; it would be refused
// again.
func noAnswer(host string, err error) Result {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var blocked *blockedError
	return Result{Retry: !errors.As(err, &blocked), Err: fmt.Errorf("post to %s: %w", host, err)}
}
