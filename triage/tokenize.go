package triage

import (
	"unicode"
	"unicode/utf8"
)

// maxField bounds the text looked at per field. Tickets are at most 10,000
// bytes a field; the cap keeps Classify cheap even if a caller forgets to
// enforce that, and a problem is described long before 64 KiB.
const maxField = 64 << 10

// words lower-cases s, splits it into words and calls emit with each one,
// normalised. A word is a maximal run of letters, digits, combining marks
// and underscores (so an identifier such as the stop code
// CRITICAL_PROCESS_DIED is one word, not an urgency signal). Apostrophes
// inside a word are dropped ("can't" → "cant"), a plain plural "s" is folded
// ("printers" → "printer") and aliases are applied. Invalid UTF-8 acts as a
// separator. The slice passed to emit is reused; emit must not keep it.
func words(s string, emit func([]byte)) {
	if len(s) > maxField {
		s = s[:maxField]
	}
	var arr [64]byte
	buf := arr[:0]
	flush := func() {
		if len(buf) > 0 {
			emit(normWord(buf))
			buf = buf[:0]
		}
	}
	for i := 0; i < len(s); {
		// ASCII, nearly all of a typical ticket, without decoding.
		if c := s[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			case c == '\'':
				// Dropped, not a split: "don't" stays one word.
			default:
				flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			flush()
		case isApostrophe(r):
			// As above; checked before letters because U+02BC is one.
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
}

func isApostrophe(r rune) bool {
	return r == '’' || r == 'ʼ' || r == '‘'
}

// normWord applies plural folding and aliases to one lower-case word.
// Words ending in "ss", "us" or "is" keep their "s" (access, virus, analysis).
func normWord(w []byte) []byte {
	if n := len(w); n > 3 && w[n-1] == 's' {
		switch w[n-2] {
		case 's', 'u', 'i':
		default:
			w = w[:n-1]
		}
	}
	// Aliases: spellings that mean the same word, so phrases are listed
	// once. A switch, not a map: this runs for every word of every ticket.
	switch string(w) {
	case "cannot":
		return append(w[:0], "cant"...)
	case "logon":
		return append(w[:0], "login"...)
	}
	return w
}

// tokenize returns the normalised words of s. The classifier uses tokenIDs
// instead; this is for building the index and for tests.
func tokenize(s string) []string {
	var out []string
	words(s, func(w []byte) { out = append(out, string(w)) })
	return out
}

// vocab numbers every word that occurs in some phrase, from 1. Word 0 stands
// for any other word: it can never be part of a match, so a run of them is
// kept as one.
type vocab map[string]int32

// tokenIDs appends the word numbers of s to dst.
func (v vocab) tokenIDs(s string, dst []int32) []int32 {
	start := len(dst)
	words(s, func(w []byte) {
		id := v[string(w)] // no allocation: the conversion is only a key
		if id == 0 && len(dst) > start && dst[len(dst)-1] == 0 {
			return
		}
		dst = append(dst, id)
	})
	return dst
}
