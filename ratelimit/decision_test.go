package ratelimit

import (
	"testing"
	"time"
)

func TestDecisionSeconds(t *testing.T) {
	tests := []struct {
		name           string
		d              Decision
		wantReset      int
		wantRetryAfter int
	}{
		{"full and allowed", Decision{Allowed: true}, 0, 0},
		{"whole seconds", Decision{Allowed: true, Reset: 6 * time.Second}, 6, 0},
		{"rounds up", Decision{Allowed: true, Reset: 6*time.Second + 1}, 7, 0},
		{"sub-second", Decision{Allowed: true, Reset: time.Millisecond}, 1, 0},
		{"refused, whole", Decision{Reset: time.Minute, RetryAfter: 6 * time.Second}, 60, 6},
		{"refused, rounds up", Decision{Reset: time.Minute, RetryAfter: 8571428572}, 60, 9},
		{"refused, tiny", Decision{RetryAfter: time.Nanosecond}, 0, 1},
		{"refused, zero still says 1", Decision{}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.ResetSeconds(); got != tt.wantReset {
				t.Errorf("ResetSeconds = %d, want %d", got, tt.wantReset)
			}
			if got := tt.d.RetryAfterSeconds(); got != tt.wantRetryAfter {
				t.Errorf("RetryAfterSeconds = %d, want %d", got, tt.wantRetryAfter)
			}
		})
	}
}

func TestTighter(t *testing.T) {
	allowedMany := Decision{Allowed: true, Limit: 100, Remaining: 90, Reset: 6 * time.Second}
	allowedFew := Decision{Allowed: true, Limit: 10, Remaining: 2, Reset: 48 * time.Second}
	allowedFewLonger := Decision{Allowed: true, Limit: 5, Remaining: 2, Reset: 36 * time.Minute}
	refusedSoon := Decision{Limit: 100, Reset: time.Minute, RetryAfter: time.Second}
	refusedLater := Decision{Limit: 5, Reset: time.Minute, RetryAfter: 12 * time.Second}
	tests := []struct {
		name string
		a, b Decision
		want Decision
	}{
		{"fewer remaining wins", allowedMany, allowedFew, allowedFew},
		{"fewer remaining wins, either order", allowedFew, allowedMany, allowedFew},
		{"equal remaining: longer reset", allowedFew, allowedFewLonger, allowedFewLonger},
		{"refusal beats any allowance", allowedFew, refusedSoon, refusedSoon},
		{"refusal beats any allowance, either order", refusedSoon, allowedMany, refusedSoon},
		{"between refusals, longer wait", refusedSoon, refusedLater, refusedLater},
		{"between refusals, either order", refusedLater, refusedSoon, refusedLater},
		{"identical", allowedMany, allowedMany, allowedMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tighter(tt.a, tt.b); got != tt.want {
				t.Fatalf("Tighter = %+v, want %+v", got, tt.want)
			}
		})
	}
}
