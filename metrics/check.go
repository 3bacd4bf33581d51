package metrics

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*)?\})? (\S+)$`)
)

// Check validates text in the exposition format strictly: every family has
// HELP and TYPE before its samples, names and labels are well formed,
// values parse, no series repeats, and each histogram's buckets are
// cumulative, end in +Inf equal to _count, and come with _sum.
func Check(text string) error {
	types := map[string]string{}
	seen := map[string]bool{}
	var current string
	type hist struct {
		last    float64
		inf     float64
		count   float64
		hasSum  bool
		hasInf  bool
		hasCnt  bool
		buckets int
	}
	hists := map[string]*hist{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		at := fmt.Sprintf("line %d", i+1)
		switch {
		case strings.HasPrefix(line, "# HELP "):
			f := strings.SplitN(line[7:], " ", 2)
			if len(f) != 2 || !metricName.MatchString(f[0]) || f[1] == "" {
				return fmt.Errorf("%s: malformed HELP", at)
			}
			current = f[0]
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(line[7:])
			if len(f) != 2 || f[0] != current || !strings.Contains(" counter gauge histogram summary untyped ", " "+f[1]+" ") {
				return fmt.Errorf("%s: TYPE %q does not follow its HELP", at, line)
			}
			if _, dup := types[f[0]]; dup {
				return fmt.Errorf("%s: family %s twice", at, f[0])
			}
			types[f[0]] = f[1]
		case strings.HasPrefix(line, "#") || line == "":
			return fmt.Errorf("%s: unexpected %q", at, line)
		default:
			m := sampleLine.FindStringSubmatch(line)
			if m == nil {
				return fmt.Errorf("%s: malformed sample %q", at, line)
			}
			name, labels, value := m[1], m[2], m[3]
			v, err := strconv.ParseFloat(value, 64)
			if err != nil && value != "+Inf" && value != "-Inf" && value != "NaN" {
				return fmt.Errorf("%s: value %q", at, value)
			}
			base := name
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if b := strings.TrimSuffix(name, suffix); b != name && types[b] == "histogram" {
					base = b
				}
			}
			if base != current || types[base] == "" {
				return fmt.Errorf("%s: sample of %s outside its family", at, name)
			}
			if seen[name+labels] {
				return fmt.Errorf("%s: series %s%s twice", at, name, labels)
			}
			seen[name+labels] = true
			if types[base] == "counter" && (v < 0 || !strings.HasSuffix(name, "_total")) {
				return fmt.Errorf("%s: counter %s must be named _total and not negative", at, name)
			}
			if types[base] != "histogram" {
				continue
			}
			series := regexp.MustCompile(`,?le="[^"]*"`).ReplaceAllString(labels, "")
			if series == "{}" {
				series = ""
			}
			h := hists[base+series]
			if h == nil {
				h = &hist{}
				hists[base+series] = h
			}
			switch {
			case strings.HasSuffix(name, "_bucket"):
				if v < h.last {
					return fmt.Errorf("%s: bucket counts go down", at)
				}
				h.last = v
				h.buckets++
				if strings.Contains(labels, `le="+Inf"`) {
					h.hasInf, h.inf = true, v
				}
			case strings.HasSuffix(name, "_sum"):
				h.hasSum = true
			case strings.HasSuffix(name, "_count"):
				h.hasCnt, h.count = true, v
			}
		}
	}
	for k, h := range hists {
		if !h.hasInf || !h.hasSum || !h.hasCnt || h.inf != h.count {
			return fmt.Errorf("histogram %s: needs buckets ending in +Inf equal to _count, and _sum", k)
		}
	}
	return nil
}
