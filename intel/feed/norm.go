package feed

import (
	"strings"
	"time"
)

// normID trims and upper-cases an id.
func normID(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// validCVEID says whether s (already normalized) has the shape
// CVE-\d{4}-\d{4,}.
func validCVEID(s string) bool {
	if len(s) < 13 || len(s) > 40 || s[:4] != "CVE-" || s[8] != '-' {
		return false
	}
	return digits(s[4:8]) && digits(s[9:])
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validAttackID says whether s is an ATT&CK technique (T1059, T1059.001) or
// tactic (TA0001) id, per prefix.
func validAttackID(s, prefix string) bool {
	if !strings.HasPrefix(s, prefix) {
		return false
	}
	rest := s[len(prefix):]
	main, sub, hasSub := strings.Cut(rest, ".")
	if len(main) != 4 || !digits(main) {
		return false
	}
	return !hasSub || (prefix == "T" && len(sub) == 3 && digits(sub))
}

// normCWE returns "CWE-<n>" for a CWE id written "CWE-79", "cwe-79 ", ...;
// anything else (NVD-CWE-Other, NVD-CWE-noinfo, CWE-noinfo) is not one.
func normCWE(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if !strings.HasPrefix(s, "CWE-") || !digits(s[4:]) || len(s) > 16 {
		return "", false
	}
	return s, true
}

// leadingCWE finds a CWE id at the start of a problem-type description
// ("CWE-352 Cross-Site Request Forgery (CSRF)").
func leadingCWE(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 5 || !strings.EqualFold(s[:4], "CWE-") {
		return "", false
	}
	i := 4
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i < len(s) && s[i] != ' ' && s[i] != ':' && s[i] != ',' {
		return "", false
	}
	return normCWE(s[:i])
}

// cweSet collects CWE ids, deduplicated, in order.
type cweSet []string

func (c *cweSet) add(id string) {
	for _, x := range *c {
		if x == id {
			return
		}
	}
	*c = append(*c, id)
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",      // NVD: no zone; fractions are accepted by Parse
	"2006-01-02T15:04:05Z0700", // "+0000"
	"2006-01-02",
}

// parseTime reads the timestamps the feeds publish; no zone means UTC. An
// unreadable one is the zero time.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// langValue is a {lang, value} description.
type langValue struct {
	Lang  string `json:"lang"`
	Value string `json:"value"`
}

// english picks the first non-empty English text; failing that, the first
// non-empty one.
func english(ds []langValue) string {
	for _, d := range ds {
		l := strings.ToLower(strings.TrimSpace(d.Lang))
		if l == "en" || l == "eng" || strings.HasPrefix(l, "en-") || strings.HasPrefix(l, "en_") {
			if v := strings.TrimSpace(d.Value); v != "" {
				return v
			}
		}
	}
	for _, d := range ds {
		if v := strings.TrimSpace(d.Value); v != "" {
			return v
		}
	}
	return ""
}

// trimAll trims every string and drops empty ones; nil when none is left.
func trimAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// refSet collects references by URL, merging the tags of repeated URLs.
type refSet struct {
	refs []Reference
	at   map[string]int // built once there are many references
}

func (r *refSet) find(url string) (int, bool) {
	if r.at == nil && len(r.refs) < 32 {
		for i := range r.refs {
			if r.refs[i].URL == url {
				return i, true
			}
		}
		return 0, false
	}
	if r.at == nil {
		r.at = make(map[string]int, 2*len(r.refs))
		for i := range r.refs {
			if _, dup := r.at[r.refs[i].URL]; !dup {
				r.at[r.refs[i].URL] = i
			}
		}
	}
	i, ok := r.at[url]
	return i, ok
}

func (r *refSet) add(url string, tags []string) {
	url = strings.TrimSpace(url)
	if url == "" {
		return
	}
	tags = trimAll(tags)
	if i, ok := r.find(url); ok {
		ref := &r.refs[i]
	next:
		for _, t := range tags {
			for _, x := range ref.Tags {
				if x == t {
					continue next
				}
			}
			ref.Tags = append(ref.Tags, t)
		}
		return
	}
	if r.at != nil {
		r.at[url] = len(r.refs)
	}
	r.refs = append(r.refs, Reference{URL: url, Tags: tags})
}
