package timestamp

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	at := time.Date(2026, 11, 21, 13, 4, 5, 999, time.FixedZone("CET", 3600))
	if got := Format(at); got != "2026-11-21T12:04:05Z" {
		t.Fatalf("Format = %q", got)
	}
	if Optional(nil) != nil || *Optional(&at) != "2026-11-21T12:04:05Z" {
		t.Fatal("Optional")
	}
}

func TestParse(t *testing.T) {
	got, err := Parse("2026-11-21T13:04:05.5+01:00")
	if err != nil || !got.Equal(time.Date(2026, 11, 21, 12, 4, 5, 5e8, time.UTC)) || got.Location() != time.UTC {
		t.Fatalf("Parse = %v, %v", got, err)
	}
	for _, bad := range []string{"", "2026-11-21", "yesterday", "2026-11-21 12:00:00Z"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
