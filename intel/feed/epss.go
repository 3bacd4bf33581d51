package feed

import (
	"math"
	"strconv"
	"strings"
	"time"

	"garrison/valid"
)

// EPSS: an optional comment line
// "#model_version:v2023.03.01,score_date:2024-10-25T00:00:00+0000", the header
// "cve,epss,percentile" (older files: "cve,epss"), one row per CVE.

func (p *parser) parseEPSS() error {
	base := p.in.skipPrefix(true)
	lr := lineReader{in: p.in, pos: base, limit: maxLineSize}
	var model, date string
	for {
		b, _ := p.in.br.Peek(1)
		if len(b) == 0 || b[0] != '#' {
			break
		}
		line, _, err := lr.next()
		if err != nil {
			return err
		}
		for _, kv := range strings.Split(strings.TrimPrefix(strings.TrimSpace(string(line)), "#"), ",") {
			k, v, ok := strings.Cut(kv, ":")
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
			if !ok || k == "" {
				continue
			}
			p.meta(k, v)
			switch k {
			case "model_version":
				model = valid.Clip(v, MaxWord)
			case "score_date":
				if len(v) >= 10 {
					if _, err := time.Parse("2006-01-02", v[:10]); err == nil {
						date = v[:10]
					}
				}
			}
		}
	}
	c := p.newCSV(lr.pos, '#')
	cols, width, err := p.header(c, "EPSS CSV", "cve", "epss")
	if err != nil {
		return err
	}
	_, hasPct := cols["percentile"]
	return p.rows(c, width, func(idx int, off int64, rec []string) error {
		s := EPSSScore{CVEID: normID(field(rec, cols, "cve")), ScoreDate: date, ModelVersion: model}
		if !validCVEID(s.CVEID) {
			p.problem(idx, off, s.CVEID, "invalid CVE id %q", s.CVEID)
			return nil
		}
		var ok bool
		if s.Score, ok = unit(field(rec, cols, "epss")); !ok {
			p.problem(idx, off, s.CVEID, "EPSS score %q is not a number in [0,1]", field(rec, cols, "epss"))
			return nil
		}
		if hasPct {
			if s.Percentile, ok = unit(field(rec, cols, "percentile")); !ok {
				p.problem(idx, off, s.CVEID, "percentile %q is not a number in [0,1]", field(rec, cols, "percentile"))
				return nil
			}
		}
		if p.h.EPSS != nil {
			if err := p.h.EPSS(s); err != nil {
				return err
			}
		}
		p.sum.Records++
		return nil
	})
}

// unit parses a number in [0,1].
func unit(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, false
	}
	return f, true
}
