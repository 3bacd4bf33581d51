package llm

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ErrHidden is wrapped by the error of a narration whose answer leaves out
// or contradicts a headline fact.
var ErrHidden = errors.New("llm: the answer hides a headline fact")

// Headline is a fact a narrative may not hide: a count above zero of
// something that needs a person now. The headline facts are open alerts
// (critical, high-severity, or any about a researched indicator), escalated
// tickets and KEV-listed (known-exploited) vulnerabilities; the
// constructors below make them, and one with a count of 0 or less is no
// headline.
//
// A narrative states a headline when one of its sentences names the
// subject (one of Terms) and gives the count, or names it without denying
// it. It hides the headline when no sentence names it, when a sentence
// names it without the count and denies it ("no critical alerts",
// "critical alerts: 0", "nothing critical is open"), or when it says all
// is well ("all clear", "nothing to do", "no alerts") while the headline
// stands.
type Headline struct {
	Fact  string   // what it is, after its count: "open critical alerts"
	Count int      // above 0
	Terms []string // lower-case words or phrases, one of which names the subject in a sentence
}

func (h Headline) String() string { return strconv.Itoa(h.Count) + " " + h.Fact }

// OpenAlerts is a headline of open alerts of any severity (those about a
// researched indicator, say).
func OpenAlerts(n int) Headline {
	return Headline{Fact: "open alerts", Count: n, Terms: []string{"alert", "alerts"}}
}

// OpenCriticalAlerts, OpenHighAlerts, EscalatedTickets and KEVExposures
// are the other headline facts.
func OpenCriticalAlerts(n int) Headline {
	return Headline{Fact: "open critical alerts", Count: n, Terms: []string{"critical"}}
}

func OpenHighAlerts(n int) Headline {
	return Headline{Fact: "open high-severity alerts", Count: n, Terms: []string{"high", "high severity"}}
}

func EscalatedTickets(n int) Headline {
	return Headline{Fact: "escalated tickets", Count: n, Terms: []string{"escalated", "escalation", "escalations", "escalate", "escalating", "technician", "technicians"}}
}

func KEVExposures(n int) Headline {
	return Headline{Fact: "known-exploited (KEV) vulnerabilities", Count: n,
		Terms: []string{"kev", "known exploited", "exploited", "actively exploited"}}
}

// allClear are phrases that deny every headline at once.
var allClear = []string{
	"all clear", "all is well", "all good", "everything is fine", "everything is ok", "nothing to do", "nothing to worry",
	"nothing to report", "nothing needs", "nothing requires", "nothing of concern", "nothing urgent", "no action", "no alerts",
	"no open alerts", "no threats", "no issues", "no concerns", "no problems", "no attention", "quiet day",
}

// negations deny what their sentence names unless it gives the count.
var negations = map[string]bool{"no": true, "none": true, "zero": true, "0": true, "not": true, "nothing": true, "without": true,
	"never": true, "neither": true, "nor": true, "nobody": true}

// noneAfter deny what they follow closely: "critical alerts: 0".
var noneAfter = map[string]bool{"0": true, "zero": true, "none": true, "no": true}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
	"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// checkHeadlines refuses an answer that hides a headline fact.
func checkHeadlines(answer string, headlines []Headline) error {
	var live []Headline
	for _, h := range headlines {
		if h.Count > 0 {
			live = append(live, h)
		}
	}
	if len(live) == 0 {
		return nil
	}
	sentences := sentencesOf(answer)
	for _, s := range sentences {
		for _, p := range allClear {
			if s.has(p) {
				return fmt.Errorf("%w: it says %q while there are %s", ErrHidden, p, live[0])
			}
		}
	}
	for _, h := range live {
		stated := false
		for _, s := range sentences {
			switch s.says(h) {
			case deniesIt:
				return fmt.Errorf("%w: it denies the %s", ErrHidden, h)
			case saysIt:
				stated = true
			}
		}
		if !stated {
			return fmt.Errorf("%w: it leaves out the %s", ErrHidden, h)
		}
	}
	return nil
}

// What a sentence says of a headline.
const (
	notSaid = iota
	saysIt
	deniesIt
)

// nearBefore and nearAfter are how many words around a mention of a
// headline's subject read as about it: "6 open critical", "none of them
// critical", "critical alerts: 0".
const nearBefore, nearAfter = 4, 3

// says reads what the sentence says of h at each mention of its subject:
// the count near it states it, a negation before it or a "none" right
// after it denies it; past those,
// the count anywhere in the sentence states it, a negation anywhere denies
// it, and a plain mention states it. One denial is enough.
func (s sentence) says(h Headline) int {
	words := strings.Fields(string(s))
	out := notSaid
	for p := range words {
		n := h.termAt(words, p)
		if n == 0 {
			continue
		}
		before, after := words[max(0, p-nearBefore):p], words[p+n:min(len(words), p+n+nearAfter)]
		switch {
		case hasCount(before, h.Count) || hasCount(after, h.Count):
			out = saysIt
		case hasNegation(before) || slices.ContainsFunc(after, func(w string) bool { return noneAfter[w] }):
			return deniesIt
		case hasCount(words, h.Count):
			out = saysIt
		case hasNegation(words):
			return deniesIt
		default:
			out = saysIt
		}
	}
	return out
}

// termAt is how many words of one of h's terms start at words[p]; 0 when
// none does.
func (h Headline) termAt(words []string, p int) int {
	for _, t := range h.Terms {
		tw := strings.Fields(t)
		if p+len(tw) <= len(words) && slices.Equal(words[p:p+len(tw)], tw) {
			return len(tw)
		}
	}
	return 0
}

// hasCount reports whether the words give n, in digits or in words.
func hasCount(words []string, n int) bool {
	return slices.Contains(words, strconv.Itoa(n)) || n < len(numberWords) && slices.Contains(words, numberWords[n])
}

func hasNegation(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return negations[w] })
}

// sentence is one sentence of an answer as its lower-case words, each
// surrounded by one space, so " no alerts " finds the phrase.
type sentence string

// sentencesOf splits text at . ! ? ; and line breaks (not at the point of
// a decimal number) and reads each part's words: letters and digits, with
// "n't" read as "not".
func sentencesOf(text string) []sentence {
	text = strings.NewReplacer("n't", " not", "n’t", " not").Replace(strings.ToLower(text))
	var out []sentence
	var words []string
	var word strings.Builder
	flushWord := func() {
		if word.Len() > 0 {
			words = append(words, word.String())
			word.Reset()
		}
	}
	flush := func() {
		flushWord()
		if len(words) > 0 {
			out = append(out, sentence(" "+strings.Join(words, " ")+" "))
			words = nil
		}
	}
	runes := []rune(text)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		case r == '.' && i > 0 && i+1 < len(runes) && unicode.IsDigit(runes[i-1]) && unicode.IsDigit(runes[i+1]):
			word.WriteRune(r) // 7.5
		case strings.ContainsRune(".!?;\n", r):
			flush()
		default:
			flushWord()
		}
	}
	flush()
	return out
}

func (s sentence) has(phrase string) bool { return strings.Contains(string(s), " "+phrase+" ") }
