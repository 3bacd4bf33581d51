// Package wording holds the small pieces of English that reports, checks
// and agents put numbers into, so every sentence counts alike.
package wording

import "strconv"

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
