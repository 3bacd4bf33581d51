// Package wording holds the small pieces of English that reports, checks
// and agents put numbers into, so every sentence counts alike.
package wording

import (
	"math"
	"strconv"
	"time"
)

// Count writes "1 event" or "3 events"; empty words give just the number.
func Count(n int, one, many string) string {
	word := many
	if n == 1 {
		word = one
	}
	if word == "" {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(n) + " " + word
}

// Thousands writes n with a comma between each group of three digits:
// 100000 as "100,000".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// Days writes a whole number of days: "90 days", "1 day".
func Days(d time.Duration) string { return Count(int(d/(24*time.Hour)), "day", "days") }

// Agree picks the form that agrees with a count: one for 1, many otherwise
// ("1 key never expires", "3 keys never expire").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bytes writes a size for people, in binary units with one decimal past a
// KiB: "1 byte", "600 bytes", "8.0 KiB", "15.0 MiB", "1.5 GiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return Count(int(n), "byte", "bytes")
	}
	f, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if r := math.Abs(math.Round(f*10) / 10); r < unit { // as written: 1023.96 KiB is 1.0 MiB
			break
		}
		f, suffix = f/unit, s
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + suffix
}
