package store

import (
	"strconv"
	"strings"
	"sync"
)

// The store writes its queries once, with SQLite's placeholders: ? for
// the next argument, ?N for the Nth. PostgreSQL numbers them ($1, $2 …),
// so its driver (pgdriver.go) renumbers each query on the way, skipping
// what only looks like a placeholder: text in quotes ('…', "…", $tag$…$tag$)
// and comments. SQLite's planner hints (INDEXED BY name, NOT INDEXED),
// which change no result, are dropped: PostgreSQL plans for itself.

// rebinds keeps each query's PostgreSQL form: the store has a few hundred
// queries, each run many times.
var rebinds sync.Map // string → string

// rebind is query with its placeholders numbered for PostgreSQL.
func rebind(query string) string {
	if !strings.Contains(query, "?") && !strings.Contains(strings.ToUpper(query), "INDEXED") {
		return query
	}
	if v, ok := rebinds.Load(query); ok {
		return v.(string)
	}
	out := rebindText(query)
	rebinds.Store(query, out)
	return out
}

func rebindText(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	last := 0 // the highest argument number given so far
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := closing(q, i+1, c)
			b.WriteString(q[i:end])
			i = end
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+2+end+2])
			i += 2 + end + 2
		case c == '$':
			if tag, ok := dollarTag(q, i); ok {
				end := strings.Index(q[i+len(tag):], tag)
				if end < 0 {
					b.WriteString(q[i:])
					return b.String()
				}
				b.WriteString(q[i : i+len(tag)+end+len(tag)])
				i += len(tag) + end + len(tag)
				continue
			}
			b.WriteByte(c)
			i++
		case (c == 'I' || c == 'i' || c == 'N' || c == 'n') && (i == 0 || !identChar(q[i-1])):
			if n := plannerHint(q[i:]); n > 0 {
				i += n
				continue
			}
			b.WriteByte(c)
			i++
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			// As SQLite numbers them: ?N is the Nth argument, and a bare ?
			// the one after the highest number given so far.
			if j > i+1 {
				n, _ := strconv.Atoi(q[i+1 : j])
				last = max(last, n)
				b.WriteString("$" + q[i+1:j])
			} else {
				last++
				b.WriteString("$" + strconv.Itoa(last))
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closing is the index past the quote that closes one opened before from
// (a doubled quote is one quote inside), or the end of q.
func closing(q string, from int, quote byte) int {
	for i := from; i < len(q); i++ {
		if q[i] == quote {
			if i+1 < len(q) && q[i+1] == quote {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(q)
}

// dollarTag reads a dollar quote's opening tag ($$ or $name$) at i.
func dollarTag(q string, i int) (string, bool) {
	j := i + 1
	for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || j > i+1 && q[j] >= '0' && q[j] <= '9') {
		j++
	}
	if j < len(q) && q[j] == '$' {
		return q[i : j+1], true
	}
	return "", false
}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// plannerHint is the length of SQLite's planner hint that q starts with
// ("INDEXED BY name" or "NOT INDEXED", any case), 0 for none.
func plannerHint(q string) int {
	word := func(at int, w string) int { // the end of word w at q[at:], or -1
		if len(q) < at+len(w) || !strings.EqualFold(q[at:at+len(w)], w) || len(q) > at+len(w) && identChar(q[at+len(w)]) {
			return -1
		}
		return at + len(w)
	}
	space := func(at int) int {
		for at < len(q) && (q[at] == ' ' || q[at] == '\t' || q[at] == '\n' || q[at] == '\r') {
			at++
		}
		return at
	}
	if end := word(0, "NOT"); end > 0 {
		if end := word(space(end), "INDEXED"); end > 0 {
			return end
		}
		return 0
	}
	end := word(0, "INDEXED")
	if end < 0 {
		return 0
	}
	if end = word(space(end), "BY"); end < 0 {
		return 0
	}
	at := space(end)
	name := at
	for name < len(q) && identChar(q[name]) {
		name++
	}
	if name == at {
		return 0
	}
	return name
}
