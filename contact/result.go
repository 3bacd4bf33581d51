package contact

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	maxAnswer     = 512       // the part of an answer a Result keeps
	maxRetryAfter = time.Hour // a receiver cannot park a delivery longer
)

// Result is a receiver's answer to one attempt.
type Result struct {
	Status     int           // HTTP status; 0 when no answer came (dial, TLS, timeout)
	Body       string        // the start of the answer, at most 512 bytes, valid UTF-8
	RetryAfter time.Duration // from Retry-After (seconds or HTTP date), 0 when absent; capped at 1 h
	Retry      bool          // another attempt may succeed: no answer, 408, 429, 5xx
	Err        error         // why it failed, nil on 2xx
}

// OK says whether the receiver took the message (2xx).
func (r Result) OK() bool { return r.Status >= 200 && r.Status < 300 }

// classify reads an answer: 2xx took the message; 408, 429 and 5xx may
// take it later; any other status, a redirect included, never will.
func classify(status int, header http.Header, body []byte, now time.Time) Result {
	r := Result{Status: status, Body: answer(body), RetryAfter: retryAfter(header.Get("Retry-After"), now)}
	if r.OK() {
		return r
	}
	r.Retry = status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
	msg := strings.TrimSpace(fmt.Sprintf("receiver answered %d %s", status, http.StatusText(status)))
	if status >= 300 && status < 400 {
		msg += " (redirects are not followed: give the final URL)"
	}
	if s := line(r.Body, 200); s != "" {
		msg += ": " + s
	}
	r.Err = answerError(msg)
	return r
}

// answerError is a receiver's refusal, as text for the delivery log.
type answerError string

func (e answerError) Error() string { return string(e) }

// answer is the start of a body as valid UTF-8, cut on a rune boundary.
func answer(body []byte) string {
	if len(body) > maxAnswer {
		body = body[:maxAnswer]
		j := len(body) - 1 // where the last, perhaps cut, rune starts
		for j > 0 && j > len(body)-utf8.UTFMax && !utf8.RuneStart(body[j]) {
			j--
		}
		if !utf8.FullRune(body[j:]) {
			body = body[:j]
		}
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	for len(s) > maxAnswer { // a replacement is longer than the byte it replaced
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// retryAfter reads Retry-After: delta-seconds or an HTTP date (RFC 9110
// 10.2.3), relative to now; 0 when absent, unreadable or past, at most
// an hour.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if v[0] >= '0' && v[0] <= '9' {
		secs, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return maxRetryAfter // all digits, just too many of them
			}
			return 0
		}
		if secs >= uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		return time.Duration(secs) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	return min(max(t.Sub(now), 0), maxRetryAfter)
}
