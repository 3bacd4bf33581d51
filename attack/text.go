package attack

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"garrison/event"
)

// Match is a technique suggested by event evidence, with the rule that
// matched.
type Match struct {
	Technique Technique `json:"technique"`
	Reason    string    `json:"reason"` // e.g. `text mentions "SSH Brute"`
}

// maxTextBytes bounds the work one ForText call does; words starting past
// it are ignored (Garrison's event messages are capped far below this).
const maxTextBytes = 64 << 10

// ForText maps free text — a Suricata signature such as "ET SCAN Potential
// SSH Scan OUTBOUND", an event message — to the techniques it suggests.
//
// Matching is by whole words, case-insensitively: a word is a run of
// letters, digits and underscores, so "ET WEB_SERVER" is two words and
// "Brute-Force" is the two words of "brute force". A keyword never matches
// inside a longer word ("Tor" is not in "BitTorrent" or "monitor", "scan" is
// not in "Scandinavia"); inflections a rule wants ("scanner", "scanning")
// are listed in the rule. Each technique appears once, with the first rule
// that named it, in rule order. Policy, chat and P2P signatures map to
// nothing unless they also name an attack behaviour.
func ForText(text string) []Match {
	doc := tokenize(text)
	if len(doc.words) == 0 {
		return nil
	}
	cat := loadCatalog()
	var out []Match
	seen := map[string]bool{}
	for _, r := range compiledRules() {
		reason, ok := r.match(doc)
		if !ok {
			continue
		}
		for _, id := range r.techniques {
			if seen[id] {
				continue
			}
			if t, ok := cat.get(id); ok {
				seen[id] = true
				out = append(out, Match{Technique: t, Reason: reason})
			}
		}
	}
	return out
}

// eventTypeTechniques gives Garrison's event types a baseline; threats and
// policy violations say nothing by themselves, so their text decides.
var eventTypeTechniques = map[string][]string{
	event.TypeDNS:     {"T1071.004"}, // odd DNS is the classic tunnelling / C2 channel
	event.TypeBlocked: {"T1071"},     // a blocked flow is most often a callout the sensor knew
	event.TypeThreat:  nil,
	event.TypePolicy:  nil,
}

// ForEventType returns the baseline techniques for one of Garrison's event
// types ("dns_anomaly", "blocked_connection", "threat_detected",
// "policy_violation"); nil when the type alone suggests none or is unknown.
func ForEventType(eventType string) []Match {
	et := strings.ToLower(strings.TrimSpace(eventType))
	techIDs := eventTypeTechniques[et]
	var out []Match
	for _, id := range techIDs {
		if t, ok := Lookup(id); ok {
			out = append(out, Match{Technique: t, Reason: fmt.Sprintf("event type %q", et)})
		}
	}
	return out
}

// word is one lower-cased word of the input and where it sits.
type word struct {
	text       string
	start, end int
}

// doc is tokenized text with an index from word to positions, so each rule
// phrase costs a map lookup rather than a scan.
type doc struct {
	src   string
	words []word
	at    map[string][]int
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func tokenize(s string) doc {
	d := doc{src: s, at: map[string][]int{}}
	start := -1
	flush := func(end int) {
		if start >= 0 {
			w := strings.ToLower(s[start:end])
			d.at[w] = append(d.at[w], len(d.words))
			d.words = append(d.words, word{w, start, end})
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case isWordRune(r):
			if start < 0 {
				if i >= maxTextBytes {
					return d
				}
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return d
}

// find reports the first occurrence of phrase (consecutive words) and the
// text it covers, quoted for a reason.
func (d doc) find(phrase []string) (string, bool) {
	for _, p := range d.at[phrase[0]] {
		if p+len(phrase) > len(d.words) {
			break
		}
		ok := true
		for k := 1; k < len(phrase) && ok; k++ {
			ok = d.words[p+k].text == phrase[k]
		}
		if !ok {
			continue
		}
		// Quote the input's own spelling ("Brute-Force"), unless odd
		// separators made the span long.
		span := d.src[d.words[p].start:d.words[p+len(phrase)-1].end]
		if len(span) > 64 {
			span = strings.Join(phrase, " ")
		}
		return fmt.Sprintf("%q", span), true
	}
	return "", false
}

// compiledRule is a rule with its phrases split into words.
type compiledRule struct {
	all        [][][]string // every group must have a phrase present
	except     [][]string   // any of these present vetoes the rule
	techniques []string
}

func (r compiledRule) match(d doc) (string, bool) {
	for _, p := range r.except {
		if _, ok := d.find(p); ok {
			return "", false
		}
	}
	var quoted []string
	for _, group := range r.all {
		found := false
		for _, p := range group {
			if q, ok := d.find(p); ok {
				quoted, found = append(quoted, q), true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	return "text mentions " + strings.Join(quoted, " and "), true
}

var compiledRules = sync.OnceValue(func() []compiledRule {
	out := make([]compiledRule, 0, len(textRules))
	for _, r := range textRules {
		c := compiledRule{techniques: r.techniques}
		for _, group := range r.all {
			var g [][]string
			for _, p := range group {
				if ws := phraseWords(p); len(ws) > 0 {
					g = append(g, ws)
				}
			}
			c.all = append(c.all, g)
		}
		for _, p := range r.except {
			if ws := phraseWords(p); len(ws) > 0 {
				c.except = append(c.except, ws)
			}
		}
		out = append(out, c)
	}
	return out
})

// phraseWords splits a rule phrase the same way input is split, so a rule
// written "ms17-010" or "C&C" matches exactly what the input would give.
func phraseWords(p string) []string {
	d := tokenize(p)
	ws := make([]string, len(d.words))
	for i, w := range d.words {
		ws[i] = w.text
	}
	return ws
}
