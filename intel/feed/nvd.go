package feed

import "strings"

// NVD CVE API 2.0: {"resultsPerPage":..,"startIndex":..,"totalResults":..,
// "format":"NVD_CVE","version":"2.0","timestamp":..,"vulnerabilities":[{"cve":{...}},...]}

type nvdItem struct {
	CVE *nvdCVE `json:"cve"`
}

type nvdCVE struct {
	ID             string      `json:"id"`
	Published      string      `json:"published"`
	LastModified   string      `json:"lastModified"`
	VulnStatus     string      `json:"vulnStatus"`
	Descriptions   []langValue `json:"descriptions"`
	Metrics        nvdMetrics  `json:"metrics"`
	Weaknesses     []nvdWeak   `json:"weaknesses"`
	Configurations []nvdConfig `json:"configurations"`
	References     []nvdRef    `json:"references"`
	CISAExploitAdd string      `json:"cisaExploitAdd"`
}

type nvdMetrics struct {
	V40 []nvdMetric `json:"cvssMetricV40"`
	V31 []nvdMetric `json:"cvssMetricV31"`
	V30 []nvdMetric `json:"cvssMetricV30"`
	V2  []nvdMetric `json:"cvssMetricV2"`
}

type nvdMetric struct {
	Source   string `json:"source"`
	Type     string `json:"type"`
	CVSSData struct {
		Version      string  `json:"version"`
		VectorString string  `json:"vectorString"`
		BaseScore    float64 `json:"baseScore"`
		BaseSeverity string  `json:"baseSeverity"`
	} `json:"cvssData"`
	BaseSeverity string `json:"baseSeverity"` // v2: outside cvssData
}

type nvdWeak struct {
	Description []langValue `json:"description"`
}

type nvdConfig struct {
	Operator string `json:"operator"` // "AND": a vulnerable product only on the platforms of its other nodes
	Nodes    []struct {
		CPEMatch []nvdCPEMatch `json:"cpeMatch"`
	} `json:"nodes"`
}

// maxPlatforms bounds the platforms one AND configuration keeps.
const maxPlatforms = 32

// platforms are an AND configuration's running-on criteria: the entries
// of its nodes not themselves vulnerable, '|'-separated ("" for none, or
// for a configuration that is not AND).
func (cfg nvdConfig) platforms() string {
	if !strings.EqualFold(cfg.Operator, "AND") {
		return ""
	}
	var out []string
	for _, node := range cfg.Nodes {
		for _, m := range node.CPEMatch {
			if c := strings.TrimSpace(m.Criteria); !m.Vulnerable && c != "" && len(out) < maxPlatforms && !strings.Contains(c, "|") {
				out = append(out, c)
			}
		}
	}
	return strings.Join(out, "|")
}

type nvdCPEMatch struct {
	Vulnerable            bool   `json:"vulnerable"`
	Criteria              string `json:"criteria"`
	VersionStartIncluding string `json:"versionStartIncluding"`
	VersionStartExcluding string `json:"versionStartExcluding"`
	VersionEndIncluding   string `json:"versionEndIncluding"`
	VersionEndExcluding   string `json:"versionEndExcluding"`
}

type nvdRef struct {
	URL  string   `json:"url"`
	Tags []string `json:"tags"`
}

var nvdMeta = map[string]bool{"resultsPerPage": true, "startIndex": true, "totalResults": true, "format": true, "version": true, "timestamp": true}

func (p *parser) parseNVD() error {
	p.base = p.in.skipPrefix(false)
	p.startJSON(p.in)
	check := func(key, val string) error {
		if key == "format" && val != "NVD_CVE" {
			return p.fileErr("NVD file: format is %q, want \"NVD_CVE\"", val)
		}
		return nil
	}
	meta := func(key string) string {
		if nvdMeta[key] {
			return key
		}
		return ""
	}
	return p.walkObject("NVD file", "vulnerabilities", meta, check, p.nvdRecord)
}

func (p *parser) nvdRecord() error {
	idx := p.index
	p.index++
	var item nvdItem
	off, recErr, err := p.decodeRecord("NVD record", &item)
	if err != nil {
		return err
	}
	var id string
	if item.CVE != nil {
		id = normID(item.CVE.ID)
	}
	switch {
	case recErr != nil:
		p.problem(idx, off, id, "%s", recordErr(recErr))
		return nil
	case item.CVE == nil:
		p.problem(idx, off, "", "no \"cve\" object")
		return nil
	case !validCVEID(id):
		p.problem(idx, off, id, "invalid CVE id %q", item.CVE.ID)
		return nil
	}
	var cut cuts
	c := item.CVE.normalize(id, &cut)
	p.cut(idx, off, id, &cut)
	if p.h.CVE != nil {
		if err := p.h.CVE(c); err != nil {
			return err
		}
	}
	p.sum.Records++
	return nil
}

// normalize makes the record a CVE within the caps; cut notes what it lost.
func (n *nvdCVE) normalize(id string, cut *cuts) CVE {
	c := CVE{
		ID:           id,
		Source:       NVD,
		State:        strings.TrimSpace(n.VulnStatus),
		Published:    parseTime(n.Published),
		Modified:     parseTime(n.LastModified),
		Description:  english(n.Descriptions),
		KEVDateAdded: strings.TrimSpace(n.CISAExploitAdd),
	}
	for _, set := range []struct {
		version string
		ms      []nvdMetric
	}{{"4.0", n.Metrics.V40}, {"3.1", n.Metrics.V31}, {"3.0", n.Metrics.V30}, {"2.0", n.Metrics.V2}} {
		for _, m := range set.ms {
			v := strings.TrimSpace(m.CVSSData.Version)
			if v == "" {
				v = set.version
			}
			sev := m.CVSSData.BaseSeverity
			if sev == "" {
				sev = m.BaseSeverity
			}
			c.Metrics = append(c.Metrics, Metric{
				Version:   v,
				Vector:    strings.TrimSpace(m.CVSSData.VectorString),
				BaseScore: m.CVSSData.BaseScore,
				Severity:  strings.ToLower(strings.TrimSpace(sev)),
				Source:    strings.TrimSpace(m.Source),
				Type:      strings.TrimSpace(m.Type),
			})
		}
	}
	var cwes cweSet
	for _, w := range n.Weaknesses {
		for _, d := range w.Description {
			if id, ok := normCWE(d.Value); ok {
				cwes.add(id)
			}
		}
	}
	c.CWEs = cwes
	var seen map[CPEMatch]struct{} // duplicates are dropped
	for _, cfg := range n.Configurations {
		runningOn := cfg.platforms()
		for _, node := range cfg.Nodes {
		match:
			for _, m := range node.CPEMatch {
				if !m.Vulnerable || strings.TrimSpace(m.Criteria) == "" {
					continue
				}
				cm := CPEMatch{
					Criteria:       strings.TrimSpace(m.Criteria),
					Vulnerable:     true,
					StartIncluding: strings.TrimSpace(m.VersionStartIncluding),
					StartExcluding: strings.TrimSpace(m.VersionStartExcluding),
					EndIncluding:   strings.TrimSpace(m.VersionEndIncluding),
					EndExcluding:   strings.TrimSpace(m.VersionEndExcluding),
					RunningOn:      runningOn,
				}
				if seen != nil {
					if _, dup := seen[cm]; dup {
						continue
					}
					seen[cm] = struct{}{}
				} else {
					for _, x := range c.CPEMatches {
						if x == cm {
							continue match
						}
					}
					if len(c.CPEMatches) == 32 { // many: switch to a set
						seen = make(map[CPEMatch]struct{}, 64)
						for _, x := range c.CPEMatches {
							seen[x] = struct{}{}
						}
						seen[cm] = struct{}{}
					}
				}
				c.CPEMatches = append(c.CPEMatches, cm)
			}
		}
	}
	var refs refSet
	for _, r := range n.References {
		refs.add(r.URL, r.Tags)
	}
	c.References = refs.refs
	c.bound(cut)
	return c
}
