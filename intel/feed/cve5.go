package feed

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CVE JSON 5: {"dataType":"CVE_RECORD","dataVersion":"5.x","cveMetadata":{...},
// "containers":{"cna":{...},"adp":[...]}}. Keys come in any order (in
// vulnrichment "containers" usually precedes "cveMetadata"), so a record is
// decoded whole.

type cve5Record struct {
	DataType    string `json:"dataType"`
	CVEMetadata struct {
		CVEID             string `json:"cveId"`
		State             string `json:"state"`
		DatePublished     string `json:"datePublished"`
		DateUpdated       string `json:"dateUpdated"`
		AssignerShortName string `json:"assignerShortName"`
	} `json:"cveMetadata"`
	Containers struct {
		CNA *cve5Container  `json:"cna"`
		ADP []cve5Container `json:"adp"`
	} `json:"containers"`
}

type cve5Container struct {
	ProviderMetadata struct {
		ShortName string `json:"shortName"`
	} `json:"providerMetadata"`
	Descriptions    []langValue `json:"descriptions"`
	RejectedReasons []langValue `json:"rejectedReasons"`
	Metrics         []struct {
		V40   *cve5CVSS `json:"cvssV4_0"`
		V31   *cve5CVSS `json:"cvssV3_1"`
		V30   *cve5CVSS `json:"cvssV3_0"`
		V20   *cve5CVSS `json:"cvssV2_0"`
		Other *struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"` // shape depends on type: decoded leniently
		} `json:"other"`
	} `json:"metrics"`
	ProblemTypes []struct {
		Descriptions []struct {
			CWEID       string `json:"cweId"`
			Description string `json:"description"`
		} `json:"descriptions"`
	} `json:"problemTypes"`
	References []struct {
		URL  string   `json:"url"`
		Tags []string `json:"tags"`
	} `json:"references"`
	Affected []struct {
		Vendor        string   `json:"vendor"`
		Product       string   `json:"product"`
		DefaultStatus string   `json:"defaultStatus"`
		CPEs          []string `json:"cpes"`
		Versions      []struct {
			Version         string `json:"version"`
			LessThan        string `json:"lessThan"`
			LessThanOrEqual string `json:"lessThanOrEqual"`
			Status          string `json:"status"`
			VersionType     string `json:"versionType"`
		} `json:"versions"`
	} `json:"affected"`
}

type cve5CVSS struct {
	Version      string  `json:"version"`
	VectorString string  `json:"vectorString"`
	BaseScore    float64 `json:"baseScore"`
	BaseSeverity string  `json:"baseSeverity"`
}

// parseCVE5 reads a JSON array of records, or a sequence of top-level
// records: NDJSON (each line a complete record; a line that is not valid
// JSON is a Problem) or pretty-printed objects (a syntax error is a
// *FileError).
func (p *parser) parseCVE5() error {
	p.base = p.in.skipPrefix(true)
	c, err := p.in.br.Peek(1)
	if len(c) == 0 {
		if err != nil && err != io.EOF {
			return readErr(p.base, err)
		}
		return &FileError{Offset: p.base, Message: "empty input"}
	}
	switch c[0] {
	case '[':
		p.startJSON(p.in)
		if err := p.walkArray("CVE 5 array", p.cve5Element); err != nil {
			return err
		}
		return p.end("CVE 5 array")
	case '{':
	default:
		b, _ := p.in.br.Peek(32)
		return &FileError{Offset: p.base, Message: fmt.Sprintf("CVE JSON 5: expected a record or an array of records, found %q", b)}
	}
	lr := lineReader{in: p.in, pos: p.base}
	first, nl, err := lr.next()
	if err != nil {
		return err
	}
	if !json.Valid(first) {
		// Not one record per line: decode a stream of objects.
		p.startJSON(io.MultiReader(bytes.NewReader(first), p.in))
		for {
			p.arm()
			if !p.dec.More() {
				break
			}
			if err := p.cve5Element(); err != nil {
				return err
			}
		}
		return p.end("CVE 5 record")
	}
	// NDJSON.
	line := first
	for {
		if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 {
			off := lr.start + int64(len(line)-len(t))
			if err := p.cve5Line(bytes.TrimRight(t, " \t\r\n"), off, nl); err != nil {
				return err
			}
		}
		if !nl {
			return nil
		}
		if line, nl, err = lr.next(); err != nil {
			return err
		}
	}
}

// cve5Element decodes one record from the JSON decoder.
func (p *parser) cve5Element() error {
	idx := p.index
	p.index++
	var rec cve5Record
	off, recErr, err := p.decodeRecord("CVE 5 record", &rec)
	if err != nil {
		return err
	}
	return p.cve5Emit(idx, off, &rec, recErr)
}

// cve5Line decodes one NDJSON line; last says whether it ended in a newline.
func (p *parser) cve5Line(b []byte, off int64, nl bool) error {
	idx := p.index
	p.index++
	var rec cve5Record
	err := json.Unmarshal(b, &rec)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		if !nl {
			return &FileError{Offset: off, Message: "truncated CVE 5 record at end of input: " + err.Error(), Err: err}
		}
		p.problem(idx, off, "", "invalid JSON: %v", err)
		return nil
	}
	return p.cve5Emit(idx, off, &rec, err)
}

func (p *parser) cve5Emit(idx int, off int64, rec *cve5Record, recErr error) error {
	id := normID(rec.CVEMetadata.CVEID)
	switch {
	case recErr != nil:
		p.problem(idx, off, id, "%s", recordErr(recErr))
		return nil
	case rec.DataType != "" && rec.DataType != "CVE_RECORD":
		p.problem(idx, off, id, "dataType is %q, want \"CVE_RECORD\"", rec.DataType)
		return nil
	case !validCVEID(id):
		p.problem(idx, off, id, "invalid or missing cveMetadata.cveId %q", rec.CVEMetadata.CVEID)
		return nil
	}
	var cut cuts
	c := rec.normalize(id, &cut)
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
func (r *cve5Record) normalize(id string, cut *cuts) CVE {
	md := &r.CVEMetadata
	c := CVE{
		ID:        id,
		Source:    CVE5,
		State:     strings.TrimSpace(md.State),
		Published: parseTime(md.DatePublished),
		Modified:  parseTime(md.DateUpdated),
	}
	type container struct {
		kind string
		*cve5Container
	}
	var cs []container
	if r.Containers.CNA != nil {
		cs = append(cs, container{"cna", r.Containers.CNA})
		c.Description = english(r.Containers.CNA.Descriptions)
		if c.Description == "" {
			c.Description = english(r.Containers.CNA.RejectedReasons)
		}
	}
	for i := range r.Containers.ADP {
		cs = append(cs, container{"adp", &r.Containers.ADP[i]})
	}
	var (
		cwes     cweSet
		refs     refSet
		cnaSSVC  *SSVC
		adpSSVC  *SSVC
		kevAdded string
	)
	for _, ct := range cs {
		source := strings.TrimSpace(ct.ProviderMetadata.ShortName)
		if source == "" && ct.kind == "cna" {
			source = strings.TrimSpace(md.AssignerShortName)
		}
		if c.Description == "" {
			c.Description = english(ct.Descriptions)
		}
		for _, m := range ct.Metrics {
			for _, v := range []struct {
				version string
				m       *cve5CVSS
			}{{"4.0", m.V40}, {"3.1", m.V31}, {"3.0", m.V30}, {"2.0", m.V20}} {
				if v.m == nil {
					continue
				}
				ver := strings.TrimSpace(v.m.Version)
				if ver == "" {
					ver = v.version
				}
				c.Metrics = append(c.Metrics, Metric{
					Version:   ver,
					Vector:    strings.TrimSpace(v.m.VectorString),
					BaseScore: v.m.BaseScore,
					Severity:  strings.ToLower(strings.TrimSpace(v.m.BaseSeverity)),
					Source:    source,
					Type:      ct.kind,
				})
			}
			if m.Other == nil {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(m.Other.Type)) {
			case "ssvc":
				if s := ssvcContent(m.Other.Content); s != nil {
					if ct.kind == "adp" && adpSSVC == nil {
						adpSSVC = s
					} else if ct.kind == "cna" && cnaSSVC == nil {
						cnaSSVC = s
					}
				}
			case "kev":
				var k struct {
					DateAdded string `json:"dateAdded"`
				}
				if json.Unmarshal(m.Other.Content, &k) == nil && kevAdded == "" {
					kevAdded = strings.TrimSpace(k.DateAdded)
				}
			}
		}
		for _, pt := range ct.ProblemTypes {
			for _, d := range pt.Descriptions {
				id, ok := normCWE(d.CWEID)
				if !ok {
					id, ok = leadingCWE(d.Description)
				}
				if ok {
					cwes.add(id)
				}
			}
		}
		for _, ref := range ct.References {
			refs.add(ref.URL, ref.Tags)
		}
		for _, a := range ct.Affected {
			af := Affected{
				Vendor:        strings.TrimSpace(a.Vendor),
				Product:       strings.TrimSpace(a.Product),
				DefaultStatus: strings.TrimSpace(a.DefaultStatus),
				CPEs:          trimAll(a.CPEs),
			}
			for _, v := range a.Versions {
				af.Versions = append(af.Versions, AffectedVersion{
					Version:         strings.TrimSpace(v.Version),
					LessThan:        strings.TrimSpace(v.LessThan),
					LessThanOrEqual: strings.TrimSpace(v.LessThanOrEqual),
					Status:          strings.TrimSpace(v.Status),
					VersionType:     strings.TrimSpace(v.VersionType),
				})
			}
			c.Affected = append(c.Affected, af)
		}
	}
	c.CWEs = cwes
	c.References = refs.refs
	c.SSVC = adpSSVC
	if c.SSVC == nil {
		c.SSVC = cnaSSVC
	}
	c.KEVDateAdded = kevAdded
	c.bound(cut)
	return c
}

// ssvcContent reads {"options":[{"Exploitation":"active"},{"Automatable":"no"},
// {"Technical Impact":"total"}],"timestamp":...}; nil when there is no option.
func ssvcContent(raw json.RawMessage) *SSVC {
	var content struct {
		Options   []map[string]any `json:"options"`
		Timestamp any              `json:"timestamp"`
	}
	if json.Unmarshal(raw, &content) != nil {
		return nil
	}
	var s SSVC
	for _, o := range content.Options {
		for k, v := range o {
			val, ok := v.(string)
			if !ok {
				continue
			}
			val = strings.TrimSpace(val)
			switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(k), " ", "")) {
			case "exploitation":
				s.Exploitation = val
			case "automatable":
				s.Automatable = val
			case "technicalimpact":
				s.TechnicalImpact = val
			}
		}
	}
	if s == (SSVC{}) {
		return nil
	}
	if ts, ok := content.Timestamp.(string); ok {
		s.Timestamp = strings.TrimSpace(ts)
	}
	return &s
}

// lineReader reads lines of at most maxRecordSize bytes.
type lineReader struct {
	in    *input
	buf   []byte
	pos   int64 // stream offset of the next line
	start int64 // stream offset of the line last returned
	limit int64 // 0: maxRecordSize
}

// next returns the next line without its newline, and whether it had one.
// At the end of input it returns an empty line and false.
func (l *lineReader) next() ([]byte, bool, error) {
	max := l.limit
	if max == 0 {
		max = maxRecordSize
	}
	l.start = l.pos
	l.buf = l.buf[:0]
	for {
		frag, err := l.in.br.ReadSlice('\n')
		if int64(len(l.buf)+len(frag)) > max+1 {
			return nil, false, &FileError{Offset: l.start, Message: fmt.Sprintf("line longer than %d bytes", max)}
		}
		l.buf = append(l.buf, frag...)
		l.pos += int64(len(frag))
		switch {
		case err == nil:
			return l.buf[:len(l.buf)-1], true, nil
		case err == io.EOF:
			return l.buf, false, nil
		case err != bufio.ErrBufferFull:
			return nil, false, readErr(l.pos, err)
		}
	}
}
