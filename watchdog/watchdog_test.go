package watchdog

import (
	"testing"
	"time"

	"garrison/store"
)

func TestThreshold(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    store.SourceActivity
		want time.Duration
	}{
		{"one event: the minimum", store.SourceActivity{N: 1, FirstSeen: t0, LastSeen: t0}, time.Hour},
		{"a chatty sensor: the minimum", store.SourceActivity{N: 10001, FirstSeen: t0, LastSeen: t0.Add(24 * time.Hour)}, time.Hour},
		{"a sensor of every four hours: three gaps", store.SourceActivity{N: 7, FirstSeen: t0, LastSeen: t0.Add(24 * time.Hour)}, 12 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Threshold(tc.a, time.Hour); got != tc.want {
				t.Fatalf("Threshold = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNotice(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		left time.Duration
		want int
	}{{20 * day, 0}, {14*day + time.Minute, 0}, {14 * day, 14}, {10 * day, 14}, {3 * day, 3}, {2*day + 12*time.Hour, 3}, {day, 1}, {time.Minute, 1}} {
		if got := Notice(tc.left); got != tc.want {
			t.Errorf("Notice(%s) = %d, want %d", tc.left, got, tc.want)
		}
	}
}
