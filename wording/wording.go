// Package wording holds the small pieces of English that reports, checks
// and agents put numbers into, so every sentence counts alike.
package wording

import (
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
