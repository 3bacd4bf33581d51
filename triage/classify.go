package triage

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Result is the triage of one ticket.
type Result struct {
	Category   string   `json:"category"`
	Title      string   `json:"title"`
	Confidence float64  `json:"confidence"` // 0..1, rounded to 2 decimals
	Priority   string   `json:"suggested_priority"`
	Steps      []string `json:"resolution_steps"`
	Evidence   []string `json:"evidence"` // the phrases found that decided it
	Reasons    []string `json:"reasons"`  // why this category, priority and confidence
}

// Scoring constants; see the package documentation for the formula.
const (
	subjectFactor = 2    // the subject is what the user thinks the problem is
	strengthScale = 3    // score at which strength reaches 1 − 1/e ≈ 0.63
	minScore      = 3    // below this a category is only a hint
	maxConfidence = 0.99 // phrase matching is never certain
	noMatchConf   = 0.1  // "general" when nothing matched at all
	hintConfCap   = 0.3  // "general" when only weak hints matched
	maxEvidence   = 10
	maxListed     = 5 // phrases quoted in a reason
)

// Where a phrase was found; the larger value wins.
const (
	notFound uint8 = iota
	inDescription
	inSubject
)

type kind uint8

const (
	kindMatch kind = iota
	kindCritical
	kindUrgency
)

// entry is one phrase of the index.
type entry struct {
	article int // index into kb; -1 for urgency signals
	kind    kind
	term    *term
}

// phraseIndex finds candidate phrases by their first word, so a ticket is
// scanned once whatever the size of the knowledge base. Words are numbered
// (see vocab) so that tokenising a ticket allocates no strings.
type phraseIndex struct {
	vocab   vocab
	entries []entry
	byFirst [][]int // entry numbers by first word number, longest phrase first
}

var index = buildIndex()

func buildIndex() phraseIndex {
	ix := phraseIndex{vocab: vocab{}, byFirst: [][]int{nil}}
	add := func(article int, k kind, ts []term) {
		for i := range ts {
			t := &ts[i]
			t.tokens = tokenize(t.phrase)
			if len(t.tokens) == 0 {
				panic("triage: phrase without words: " + t.phrase)
			}
			t.ids = make([]int32, len(t.tokens))
			for j, w := range t.tokens {
				id, ok := ix.vocab[w]
				if !ok {
					id = int32(len(ix.byFirst))
					ix.vocab[w] = id
					ix.byFirst = append(ix.byFirst, nil)
				}
				t.ids[j] = id
			}
			ix.byFirst[t.ids[0]] = append(ix.byFirst[t.ids[0]], len(ix.entries))
			ix.entries = append(ix.entries, entry{article: article, kind: k, term: t})
		}
	}
	for a := range kb {
		add(a, kindMatch, kb[a].match)
		add(a, kindCritical, kb[a].critical)
	}
	add(-1, kindUrgency, urgency)
	// scan relies on the longest phrase for a first word coming first.
	for _, ids := range ix.byFirst {
		slices.SortStableFunc(ids, func(a, b int) int {
			return cmp.Compare(len(ix.entries[b].term.ids), len(ix.entries[a].term.ids))
		})
	}
	return ix
}

// scan records, for every indexed phrase occurring in toks as a whole run
// of words, that it was found in field. Within one article a word counts
// for one phrase only, the longest starting first, so "won't print" does not
// also score "print" and "ransom note" does not also score "ransom".
// covered is scratch space, one slot per article plus one for urgency.
func scan(toks []int32, field uint8, seen []uint8, covered []int) {
	clear(covered)
	for i, tok := range toks {
		for _, id := range index.byFirst[tok] { // longest first; none for word 0
			e := index.entries[id]
			slot := e.article
			if slot < 0 {
				slot = len(kb)
			}
			want := e.term.ids
			if i < covered[slot] || len(want) > len(toks)-i || !slices.Equal(toks[i:i+len(want)], want) {
				continue
			}
			covered[slot] = i + len(want)
			seen[id] = max(seen[id], field)
		}
	}
}

// hit is a phrase found in the ticket, with what it contributed.
type hit struct {
	id    int
	field uint8
	score float64
}

func (h hit) phrase() string { return index.entries[h.id].term.phrase }

func (h hit) where() string {
	if h.field == inSubject {
		return "subject"
	}
	return "description"
}

// Classify triages one ticket. It is deterministic, pure and safe for
// concurrent use; any input, including invalid UTF-8, is accepted.
func Classify(subject, description string) Result {
	toks := make([]int32, 0, 256)
	toks = index.vocab.tokenIDs(subject, toks)
	nSubject := len(toks)
	toks = index.vocab.tokenIDs(description, toks)

	seen := make([]uint8, len(index.entries))
	covered := make([]int, len(kb)+1)
	scan(toks[:nSubject], inSubject, seen, covered)
	scan(toks[nSubject:], inDescription, seen, covered)

	scores := make([]float64, len(kb))
	var hits, urgent []hit
	for id, f := range seen {
		if f == notFound {
			continue
		}
		e := index.entries[id]
		h := hit{id: id, field: f}
		if e.kind == kindUrgency {
			urgent = append(urgent, h)
			continue
		}
		h.score = e.term.weight
		if f == inSubject {
			h.score *= subjectFactor
		}
		scores[e.article] += h.score
		hits = append(hits, h)
	}

	// Best and runner-up; ties go to the earlier article.
	best, second := -1, -1
	for a, s := range scores {
		switch {
		case s == 0:
		case best < 0 || s > scores[best]:
			best, second = a, best
		case second < 0 || s > scores[second]:
			second = a
		}
	}
	var s1, s2 float64
	if best >= 0 {
		s1 = scores[best]
	}
	if second >= 0 {
		s2 = scores[second]
	}
	conf := confidence(s1, s2)

	var r Result
	var article *Article
	var won []hit // the winner's phrases, strongest first
	switch {
	case best < 0:
		article = generalArticle()
		conf = noMatchConf
		r.Reasons = append(r.Reasons,
			"no knowledge-base phrase matched: general request",
			fmt.Sprintf("confidence %.2f: nothing to go on", conf))
	case s1 < minScore:
		article = generalArticle()
		conf = min(conf, hintConfCap)
		r.Reasons = append(r.Reasons,
			fmt.Sprintf("only a weak hint of %s (%s, score %g, need %d): general request",
				kb[best].Category, quoteHits(hitsOf(hits, best)), s1, minScore),
			fmt.Sprintf("confidence %.2f: capped at %.2f for weak hints", round2(conf), hintConfCap))
	default:
		article = &kb[best]
		won = hitsOf(hits, best)
		r.Reasons = append(r.Reasons,
			fmt.Sprintf("category %s (%s): score %g from %s",
				article.Category, article.Title, s1, quoteHits(won)),
			confidenceReason(conf, s1, s2, second))
	}
	conf = round2(conf)
	if conf < EscalateBelow {
		r.Reasons = append(r.Reasons,
			fmt.Sprintf("confidence %.2f is below %.2f: route to a technician", conf, EscalateBelow))
	}

	r.Category = article.Category
	r.Title = article.Title
	r.Confidence = conf
	r.Steps = slices.Clone(article.Steps)
	r.Evidence = make([]string, 0, min(len(won), maxEvidence))
	for _, h := range won[:min(len(won), maxEvidence)] {
		r.Evidence = append(r.Evidence, h.phrase())
	}
	var reasons []string
	r.Priority, reasons = priority(article, won, urgent)
	r.Reasons = append(r.Reasons, reasons...)
	return r
}

// confidence implements the package documentation's formula, unrounded.
func confidence(s1, s2 float64) float64 {
	if s1 <= 0 {
		return 0
	}
	share := 1 - s2/(2*s1)
	return strength(s1) * share
}

// strength is capped so that rounding can never lift a tied or nearly tied
// ticket to EscalateBelow, however high the scores.
func strength(s1 float64) float64 {
	return min(1-math.Exp(-s1/strengthScale), maxConfidence)
}

func confidenceReason(conf, s1, s2 float64, second int) string {
	if second < 0 {
		return fmt.Sprintf("confidence %.2f: score %g gives strength %.2f and no other category matched",
			round2(conf), s1, strength(s1))
	}
	why := "runner-up"
	if s2 >= 0.8*s1 {
		why = "strongly competing"
	}
	return fmt.Sprintf("confidence %.2f: score %g gives strength %.2f, reduced by the %s %s (score %g)",
		round2(conf), s1, strength(s1), why, kb[second].Category, s2)
}

// hitsOf returns the hits of one article, largest contribution first, then
// in knowledge-base order, so evidence is stable.
func hitsOf(hits []hit, article int) []hit {
	var out []hit
	for _, h := range hits {
		if index.entries[h.id].article == article {
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	return out
}

// quoteHits lists up to maxListed phrases with where they were found.
func quoteHits(hs []hit) string {
	var b strings.Builder
	for i, h := range hs {
		if i == maxListed {
			fmt.Fprintf(&b, " and %d more", len(hs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q in the %s", h.phrase(), h.where())
	}
	return b.String()
}

// alwaysHigh are categories that are security incidents whatever the
// wording: their base priority is high and nothing lowers it.
var alwaysHigh = map[string]bool{
	"ransomware": true, "malware_alert": true, "account_compromise": true,
}

var levels = []string{PriorityLow, PriorityMedium, PriorityHigh}

// priority starts from the article's base priority; a critical phrase of
// the winning article makes it high, otherwise an urgency signal raises it
// one level. Each decision is explained.
func priority(a *Article, won, urgent []hit) (string, []string) {
	level := slices.Index(levels, a.Priority)
	reason := fmt.Sprintf("priority %s: base priority for %s", a.Priority, a.Category)
	if alwaysHigh[a.Category] {
		reason += ", a security incident that is always high"
	}
	reasons := []string{reason}

	var critical []hit
	for _, h := range won {
		if index.entries[h.id].kind == kindCritical {
			critical = append(critical, h)
		}
	}
	if len(critical) > 0 && level < 2 {
		reasons = append(reasons, fmt.Sprintf("priority raised from %s to high by %s: %s",
			levels[level], quoteHits(critical), a.criticalWhy))
		level = 2
	}
	if len(urgent) > 0 {
		if level < 2 {
			reasons = append(reasons, fmt.Sprintf("priority raised from %s to %s: urgency signal %s",
				levels[level], levels[level+1], quoteHits(urgent)))
			level++
		} else {
			reasons = append(reasons, fmt.Sprintf("urgency signal %s noted; already high", quoteHits(urgent)))
		}
	}
	return levels[level], reasons
}

func generalArticle() *Article { return &kb[len(kb)-1] }

func round2(x float64) float64 { return math.Round(x*100) / 100 }
