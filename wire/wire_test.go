package wire

import (
	"testing"
	"time"
)

func TestValidText(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"plain", true}, {"two\nlines\tand a tab", true}, {"ünïcödé ✓", true}, {"", true},
		{"nul\x00", false}, {"bell\a", false}, {"del\x7f", false}, {"bad \xff utf-8", false}, {"cr\r", false},
	}
	for _, c := range cases {
		if got := ValidText(c.in); got != c.want {
			t.Errorf("ValidText(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestTimestamps(t *testing.T) {
	at := time.Date(2026, 11, 21, 13, 4, 5, 999, time.FixedZone("CET", 3600))
	if got := Timestamp(at); got != "2026-11-21T12:04:05Z" {
		t.Fatalf("Timestamp = %q", got)
	}
	if OptTimestamp(nil) != nil || *OptTimestamp(&at) != "2026-11-21T12:04:05Z" {
		t.Fatal("OptTimestamp")
	}
}
