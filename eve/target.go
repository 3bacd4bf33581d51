package eve

import (
	"net/netip"
	"regexp"
	"strings"

	"garrison/event"
)

// The severity table caps an exploit attempt from outside at medium: most
// are the internet trying every exploit on every address. The attempt is
// worth Suricata's own severity when its target runs what it targets,
// which only the inventory knows; so the event carries what the signature
// names (Target) for whoever holds it (ingest) to decide.

// Target is what an exploit attempt aims at: the host, and what its
// signature names (the CVEs in its metadata and text, the products its
// metadata.affected_product gives).
type Target struct {
	Host     netip.Addr
	CVEs     []string // CVE-2021-44228
	Products []string // Apache_HTTP_server, as ET writes them; "Any" left out
	// Uncapped is the severity the attempt has when the host runs what
	// it targets.
	Uncapped event.Severity
}

// Limits on what one signature may name.
const (
	maxTargetNames = 16
	maxTargetName  = 128
)

var cveInText = regexp.MustCompile(`(?i)\bCVE[-_](\d{4})[-_](\d{4,7})\b`)

// exploitTarget is the Target of an alert, nil when no cap applied that
// the inventory could lift: not an exploit from outside, not capped, or
// naming neither a CVE nor a product.
func exploitTarget(a record, src, dst netip.Addr) *Target {
	direction := Direction(src, dst)
	if Classify(a.str("signature"), a.str("category")) != ClassExploit || (direction != Inbound && direction != External) {
		return nil
	}
	suricata, ok := a.int("severity")
	uncapped := suricataSeverity(suricata, ok)
	if uncapped <= alertSeverity(a, src, dst) {
		return nil
	}
	t := &Target{Host: dst, Uncapped: uncapped}
	add := func(list *[]string, v string) {
		if len(*list) < maxTargetNames && len(v) <= maxTargetName && v != "" {
			for _, have := range *list {
				if strings.EqualFold(have, v) {
					return
				}
			}
			*list = append(*list, v)
		}
	}
	texts := []string{a.str("signature")}
	if m, ok := a.obj("metadata"); ok {
		texts = append(texts, strs(m["cve"])...)
		for _, p := range strs(m["affected_product"]) {
			if !strings.EqualFold(p, "Any") {
				add(&t.Products, p)
			}
		}
	}
	for _, text := range texts {
		for _, m := range cveInText.FindAllStringSubmatch(text, maxTargetNames) {
			add(&t.CVEs, "CVE-"+m[1]+"-"+m[2])
		}
	}
	if len(t.CVEs) == 0 && len(t.Products) == 0 {
		return nil
	}
	return t
}

// strs reads a JSON list of strings (EVE's metadata values), other items
// left out.
func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list[:min(len(list), maxTargetNames)] {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
