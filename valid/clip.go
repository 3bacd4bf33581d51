package valid

import (
	"slices"
	"strings"
	"unicode/utf8"

	"garrison/wording"
)

// Clip is the one rule for text over its field's cap where Garrison keeps
// it rather than refusing it (text of intelligence feeds, of Suricata
// records, of a language model's or a mirror's messages): it is cut to at
// most max bytes on a UTF-8 boundary and ends in a marker naming the size
// it had, "… [truncated from 15.0 MiB]", so a reader sees that it was cut
// and by how much. Where the marker would take more than half of max, the
// marker is "…" alone. Text that fits comes back as it is; a cut result
// shares no memory with s, so a 15 MiB value is not kept alive by its
// first few KiB. (Input a person typed is refused instead: CheckText.)
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	marker := "… [truncated from " + wording.Bytes(int64(len(s))) + "]"
	if len(marker) > max/2 {
		marker = "…"
	}
	if len(marker) > max {
		return strings.Clone(cutUTF8(s, max))
	}
	return cutUTF8(s, max-len(marker)) + marker // concatenating makes a new string
}

// cutUTF8 is s's first n bytes at most, backed up to the start of the rune
// the cut would split (up to three bytes: invalid UTF-8 is cut where it
// falls).
func cutUTF8(s string, n int) string {
	for i := 0; i < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n]
}

// ClipList is the rule for a list from outside over its cap: its first max
// entries are kept (in a new array, so the rest can be collected); dropped
// is how many were left out.
func ClipList[T any](list []T, max int) (kept []T, dropped int) {
	if len(list) <= max {
		return list, 0
	}
	return slices.Clone(list[:max]), len(list) - max
}
