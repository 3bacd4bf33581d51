package outreach

import (
	"fmt"
	"slices"
	"strings"

	"garrison/store"
)

// Reason is one factor of a score with the points it gave.
type Reason struct {
	Factor string `json:"factor"`
	Points int    `json:"points"`
	Detail string `json:"detail"`
}

// Criteria are what a hunter run looks for.
type Criteria struct {
	Vertical, Region string
}

// verticalFit is how much a vertical needs a managed security provider:
// regulated data and small in-house IT score highest.
var verticalFit = map[string]int{
	"healthcare": 25, "dental": 25, "finance": 25, "legal": 22, "accounting": 22, "insurance": 20, "government": 18,
	"education": 15, "retail": 15, "hospitality": 13, "manufacturing": 14, "construction": 12, "real_estate": 12,
	"nonprofit": 12, "logistics": 12, "technology": 8,
}

// compliancePressure names the regime each vertical answers to.
var compliancePressure = map[string]struct {
	regime string
	points int
}{
	"healthcare": {"HIPAA", 15}, "dental": {"HIPAA", 15}, "finance": {"GLBA and SEC/FINRA rules", 12},
	"accounting": {"GLBA and IRS Publication 4557", 12}, "insurance": {"GLBA and state insurance data security laws", 12},
	"retail": {"PCI DSS", 12}, "hospitality": {"PCI DSS", 12}, "government": {"CMMC / NIST SP 800-171", 12},
	"legal": {"client confidentiality (ABA Model Rule 1.6)", 10}, "education": {"FERPA", 8},
}

// signals are phrases in the notes that show a need now.
var signals = []struct {
	factor  string
	points  int
	detail  string
	phrases []string
}{
	{"recent_incident", 12, "a recent security incident", []string{"breach", "ransomware", "incident", "hacked", "phishing", "compromised", "malware"}},
	{"no_it_staff", 10, "no dedicated IT staff", []string{"no it", "no in-house it", "no it staff", "no internal it", "part-time it", "nephew", "office manager handles it"}},
	{"compliance_deadline", 10, "a compliance deadline or audit", []string{"deadline", "audit", "assessment due", "renewal", "cyber insurance", "questionnaire"}},
	{"growth", 5, "growth (hiring, a new office)", []string{"hiring", "new office", "expanding", "opening", "acquisition", "growing"}},
}

// maxSignalPoints caps what the notes can add.
const maxSignalPoints = 25

// Score rates a prospect 0–100 for the criteria, every point explained.
// The model: vertical fit (5–25), its compliance pressure (0–15), size band
// (3–20), region match (15 when a region was asked and matches), signals
// in the notes (up to 25), reachable contact (up to 5); the sum is capped
// at 100.
func Score(p store.Prospect, c Criteria) (int, []Reason) {
	var reasons []Reason
	add := func(factor string, points int, detail string) {
		if points > 0 {
			reasons = append(reasons, Reason{factor, points, detail})
		}
	}
	if fit, ok := verticalFit[p.Vertical]; ok {
		add("vertical_fit", fit, fmt.Sprintf("%s businesses need managed security (%d of 25)", p.Vertical, fit))
	} else {
		add("vertical_fit", 5, "vertical unknown")
	}
	if cp, ok := compliancePressure[p.Vertical]; ok {
		add("compliance_pressure", cp.points, "must comply with "+cp.regime)
	}
	size, why := sizePoints(p.Employees)
	add("size_band", size, why)
	if c.Region != "" && strings.EqualFold(strings.TrimSpace(p.Region), strings.TrimSpace(c.Region)) {
		add("region_match", 15, "in "+p.Region)
	}
	notes := strings.ToLower(p.Notes)
	signalPoints := 0
	for _, s := range signals {
		if hit := firstPhrase(notes, s.phrases); hit != "" && signalPoints < maxSignalPoints {
			pts := min(s.points, maxSignalPoints-signalPoints)
			signalPoints += pts
			add(s.factor, pts, fmt.Sprintf("the notes mention %s (%q)", s.detail, hit))
		}
	}
	contact := 0
	if p.ContactEmail != "" {
		contact += 3
	}
	if p.ContactPhone != "" {
		contact += 2
	}
	add("contact", contact, "a named way to reach them (e-mail 3, phone 2)")
	total := 0
	for _, r := range reasons {
		total += r.Points
	}
	return min(total, 100), reasons
}

func sizePoints(employees *int) (int, string) {
	if employees == nil || *employees == 0 {
		return 5, "size unknown"
	}
	n := *employees
	switch {
	case n >= 10 && n < 50:
		return 20, fmt.Sprintf("%d employees: small enough to lack IT staff, large enough to pay", n)
	case n >= 50 && n < 250:
		return 18, fmt.Sprintf("%d employees: a mid-sized managed-services account", n)
	case n >= 250 && n < 1000:
		return 10, fmt.Sprintf("%d employees: likely has some in-house IT", n)
	case n >= 1 && n < 10:
		return 8, fmt.Sprintf("%d employees: a small account", n)
	case n >= 1000:
		return 3, fmt.Sprintf("%d employees: usually runs its own security team", n)
	}
	return 0, ""
}

// firstPhrase finds the first phrase present as whole words ("no it" in
// "no IT staff", not in "no items"), unless negated just before ("no
// breach").
func firstPhrase(text string, phrases []string) string {
	for _, ph := range phrases {
		for from := 0; ; {
			i := strings.Index(text[from:], ph)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(ph)
			from = start + 1
			if (start > 0 && isWordByte(text[start-1])) || (end < len(text) && isWordByte(text[end])) {
				continue
			}
			before := strings.Fields(text[max(0, start-12):start])
			if n := len(before); n > 0 && (before[n-1] == "no" || before[n-1] == "not" || before[n-1] == "never") && !strings.HasPrefix(ph, "no ") {
				continue
			}
			return ph
		}
	}
	return ""
}

func isWordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' }

// Matches says whether a prospect is in the run's region ("" matches all).
func (c Criteria) Matches(p store.Prospect) bool {
	return c.Region == "" || strings.EqualFold(strings.TrimSpace(p.Region), strings.TrimSpace(c.Region))
}

// Summary states a lead's facts in two sentences, from the prospect and its
// score alone.
func Summary(p store.Prospect, score int, reasons []Reason) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", p.Company, p.Domain)
	var facts []string
	if p.Vertical != "" {
		facts = append(facts, "a "+strings.ReplaceAll(p.Vertical, "_", " ")+" business")
	}
	if p.Employees != nil {
		facts = append(facts, fmt.Sprintf("with %d employees", *p.Employees))
	}
	if p.Region != "" {
		facts = append(facts, "in "+p.Region)
	}
	if len(facts) > 0 {
		b.WriteString(" is " + strings.Join(facts, " "))
	}
	fmt.Fprintf(&b, ". It scores %d of 100", score)
	sorted := slices.Clone(reasons)
	slices.SortStableFunc(sorted, func(a, b Reason) int { return b.Points - a.Points })
	var top []string
	for _, r := range sorted[:min(3, len(sorted))] {
		top = append(top, r.Detail)
	}
	if len(top) > 0 {
		b.WriteString(", chiefly because " + strings.Join(top, "; "))
	}
	b.WriteString(".")
	return b.String()
}
