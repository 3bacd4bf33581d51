package event

import (
	"slices"
	"strings"
	"unicode"
)

// A text search (Search.Text) finds words, not any run of characters:
// that is what an index can answer at millions of events. A word is what
// lies between spaces and the punctuation that surrounds names in prose
// (quotes, brackets, commas …), with ASCII letters in lower case. A word holding punctuation
// that joins the parts of a name (a dotted signature, a host, a path, an
// address, key=value) is also indexed by each of its parts, so
// "Trojan.Generic.42 on ws-1.corp" is found by trojan.generic.42, by
// generic, by 42, by ws-1.corp and by corp.

// isSpaceOrEnclosing reports whether r ends a word.
func isSpaceOrEnclosing(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`,;()[]{}<>|!?*", r)
}

// isJoining reports whether r joins the parts of a word.
func isJoining(r rune) bool {
	return strings.ContainsRune(`./\:-_@=#&+%$~^`, r)
}

// maxWordsIndexed bounds the words an event is indexed by.
const maxWordsIndexed = 256

// maxWordBytes bounds one word: a longer run is no word anyone types.
const maxWordBytes = 128

// IndexWords hands each distinct word of the texts, and each part of a
// word that holds joining punctuation, to add, at most maxWordsIndexed.
func IndexWords(add func(string), texts ...string) {
	// An event has a score of words: a list is cheaper than a map until
	// it holds many.
	var list []string
	var set map[string]bool
	seen := func(w string) bool {
		if set != nil {
			return set[w]
		}
		return slices.Contains(list, w)
	}
	n := 0
	emit := func(w string) bool {
		if w == "" || len(w) > maxWordBytes || seen(w) {
			return n < maxWordsIndexed
		}
		if n++; set != nil {
			set[w] = true
		} else if list = append(list, w); len(list) == 32 {
			set = make(map[string]bool, 2*len(list))
			for _, x := range list {
				set[x] = true
			}
		}
		add(w)
		return n < maxWordsIndexed
	}
	for _, text := range texts {
		for _, w := range strings.FieldsFunc(lowerASCII(text), isSpaceOrEnclosing) {
			w = strings.TrimFunc(w, isJoining)
			if !emit(w) {
				return
			}
			if !strings.ContainsFunc(w, isJoining) {
				continue
			}
			for _, part := range strings.FieldsFunc(w, isJoining) {
				if !emit(part) {
					return
				}
			}
		}
	}
}

// QueryWords are the words a text search must find, each whole: the
// text's words as IndexWords splits them, not their parts.
func QueryWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(lowerASCII(text), isSpaceOrEnclosing) {
		if w = strings.TrimFunc(w, isJoining); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// lowerASCII folds A-Z only. The index removes a row by naming its words
// again: folding by Unicode's tables would change with a Go release that
// brings a newer Unicode, and an event stored before it could no longer
// be taken out of the index.
func lowerASCII(s string) string {
	hasUpper := false
	for i := range len(s) {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			hasUpper = true
			break
		}
	}
	if !hasUpper {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
