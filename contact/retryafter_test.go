package contact

import (
	"testing"
	"time"
)

var retryNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"3599", 3599 * time.Second},
		{"3600", time.Hour},
		{"86400", time.Hour},
		{"99999999999999999999999999", time.Hour},
		{"-5", 0},
		{"1.5", 0},
		{"7s", 0},
		{"soon", 0},
		{"Mon, 02 Mar 2026 12:00:30 GMT", 30 * time.Second}, // IMF-fixdate
		{"Monday, 02-Mar-26 12:05:00 GMT", 5 * time.Minute}, // RFC 850
		{"Mon Mar  2 12:00:10 2026", 10 * time.Second},      // asctime
		{"Mon, 02 Mar 2026 11:00:00 GMT", 0},                // past
		{"Tue, 03 Mar 2026 12:00:00 GMT", time.Hour},        // capped
		{"Mon, 02 Mar 2026 12:00:30 +0000", 0},              // not an HTTP date
	}
	for _, tc := range tests {
		if got := retryAfter(tc.in, retryNow); got != tc.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, seed := range []string{"", "7", "0", "3600", "86400", "-1", "1e3", "99999999999999999999", " 12 ",
		"Mon, 02 Mar 2026 12:00:30 GMT", "Monday, 02-Mar-26 12:05:00 GMT", "Mon Mar  2 12:00:10 2026", "Thu, 01 Jan 1970 00:00:00 GMT",
		"Fri, 31 Dec 9999 23:59:59 GMT", "\x00", "７"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := retryAfter(v, retryNow)
		if d < 0 || d > time.Hour {
			t.Fatalf("retryAfter(%q) = %s, outside [0, 1h]", v, d)
		}
	})
}
