package feed

import "strings"

// MITRE ATT&CK STIX 2.x bundle: {"type":"bundle","id":..,"objects":[...]}.
// attack-pattern objects become Techniques, x-mitre-tactic objects Tactics;
// the x-mitre-collection object gives Meta collection and attack_version;
// other objects (relationships, groups, software, ...) are passed over.

type stixObject struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	SpecVersion string `json:"spec_version"`
	Name        string `json:"name"`
	ExternalRef []struct {
		SourceName string `json:"source_name"`
		ExternalID string `json:"external_id"`
	} `json:"external_references"`
	KillChain []struct {
		KillChainName string `json:"kill_chain_name"`
		PhaseName     string `json:"phase_name"`
	} `json:"kill_chain_phases"`
	Deprecated   bool   `json:"x_mitre_deprecated"`
	Revoked      bool   `json:"revoked"`
	ShortName    string `json:"x_mitre_shortname"`
	MitreVersion string `json:"x_mitre_version"`
}

// attackSource says whether a source or kill-chain name is ATT&CK's
// ("mitre-attack"; also the mobile and ICS domains' names).
func attackSource(s string) bool {
	switch strings.TrimSpace(s) {
	case "mitre-attack", "mitre-mobile-attack", "mitre-ics-attack":
		return true
	}
	return false
}

func (p *parser) parseATTACK() error {
	p.base = p.in.skipPrefix(false)
	p.startJSON(p.in)
	check := func(key, val string) error {
		if key == "type" && val != "bundle" {
			return p.fileErr("STIX: top-level type is %q, want \"bundle\"", val)
		}
		return nil
	}
	meta := func(key string) string {
		if key == "id" || key == "spec_version" {
			return key
		}
		return ""
	}
	return p.walkObject("STIX bundle", "objects", meta, check, p.stixRecord)
}

func (p *parser) stixRecord() error {
	idx := p.index
	p.index++
	var o stixObject
	off, recErr, err := p.decodeRecord("STIX object", &o)
	if err != nil {
		return err
	}
	var extID string
	for _, r := range o.ExternalRef {
		if attackSource(r.SourceName) && strings.TrimSpace(r.ExternalID) != "" {
			extID = normID(r.ExternalID)
			break
		}
	}
	pid := extID
	if pid == "" {
		pid = strings.TrimSpace(o.ID)
	}
	if recErr != nil {
		p.problem(idx, off, pid, "%s", recordErr(recErr))
		return nil
	}
	if v := strings.TrimSpace(o.SpecVersion); v != "" && p.sum.Meta["spec_version"] == "" {
		p.meta("spec_version", v)
	}
	switch strings.TrimSpace(o.Type) {
	case "attack-pattern":
		if !validAttackID(extID, "T") {
			p.problem(idx, off, pid, "attack-pattern without an ATT&CK technique id (got %q)", extID)
			return nil
		}
		t := Technique{ID: extID, Name: strings.TrimSpace(o.Name), Deprecated: o.Deprecated || o.Revoked}
		for _, k := range o.KillChain {
			if ph := strings.TrimSpace(k.PhaseName); attackSource(k.KillChainName) && ph != "" {
				t.Tactics = append(t.Tactics, ph)
			}
		}
		var c cuts
		t.bound(&c)
		p.cut(idx, off, extID, &c)
		if p.h.Technique != nil {
			if err := p.h.Technique(t); err != nil {
				return err
			}
		}
		p.sum.Records++
	case "x-mitre-tactic":
		if !validAttackID(extID, "TA") {
			p.problem(idx, off, pid, "x-mitre-tactic without an ATT&CK tactic id (got %q)", extID)
			return nil
		}
		t := Tactic{ID: extID, Name: strings.TrimSpace(o.Name), ShortName: strings.TrimSpace(o.ShortName)}
		var c cuts
		t.bound(&c)
		p.cut(idx, off, extID, &c)
		if p.h.Tactic != nil {
			if err := p.h.Tactic(t); err != nil {
				return err
			}
		}
		p.sum.Records++
	case "x-mitre-collection":
		if n := strings.TrimSpace(o.Name); n != "" {
			p.meta("collection", n)
		}
		if v := strings.TrimSpace(o.MitreVersion); v != "" {
			p.meta("attack_version", v)
		}
	}
	return nil
}
