package agents

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"garrison/account"
	"garrison/alerting"
	"garrison/attack"
	"garrison/blocklist"
	"garrison/intel"
	"garrison/store"
	"garrison/valid"
	"garrison/wording"

	"garrison/event"
	"garrison/timestamp"
)

var threatResearcher = Agent{
	Slug: "threat-researcher", Name: "Threat Researcher", Plan: account.PlanStarter,
	Description: "Researches a domain, IP address, file hash, CVE or vendor against the organization's events, alerts " +
		"and DNS telemetry, maps it to MITRE ATT&CK and rates the risk, with recommendations.",
	newParams: func() Params { return &threatParams{} },
	analyze:   researchThreat,
}

type threatParams struct {
	Prompt string `json:"prompt"`
	Target string `json:"target"`
	// IntelImport, instead of a target, asks what an intelligence import
	// changed in the CVEs the organization watches, and tells it once. Only
	// the store queues such runs (FinishIntelImport); the API refuses it.
	IntelImport string `json:"intel_import"`
	Options     struct {
		IncludeCVE   *bool `json:"include_cve"`
		MitreMapping *bool `json:"mitre_mapping"`
	} `json:"options"`
}

// researchWindow is how far back the researcher reads events and DNS.
const researchWindow = 90 * 24 * time.Hour

var (
	cvePattern    = regexp.MustCompile(`^(?i)CVE-\d{4}-\d{4,}$`)
	hashPattern   = regexp.MustCompile(`^(?i)[0-9a-f]{32}$|^[0-9a-f]{40}$|^[0-9a-f]{64}$`)
	domainPattern = regexp.MustCompile(`^(?i)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\.?$`)
)

// isVendorName: a letter or digit, then up to 99 letters, digits, spaces
// and ._&+- (as a regular expression, [\p{L}\p{N}] repeated 99 times took
// 16 ms and 4 MB to compile at every start).
func isVendorName(t string) bool {
	n := 0
	for i, r := range t {
		letterOrDigit := unicode.IsLetter(r) || unicode.IsNumber(r)
		if r == utf8.RuneError || n == 100 || (i == 0 && !letterOrDigit) || !letterOrDigit && !strings.ContainsRune(" ._&+-", r) {
			return false
		}
		n++
	}
	return n > 0
}

// targetKind classifies a research target.
func targetKind(t string) string {
	switch {
	case cvePattern.MatchString(t):
		return "cve"
	case hashPattern.MatchString(t):
		return "hash"
	}
	if _, err := netip.ParseAddr(t); err == nil {
		return "ip"
	}
	if len(t) <= 253 && domainPattern.MatchString(t) {
		return "domain"
	}
	if isVendorName(t) {
		return "vendor"
	}
	return ""
}

func (p *threatParams) Validate(problems *valid.Problems) {
	p.Target = strings.TrimSpace(p.Target)
	checkText(problems, "prompt", p.Prompt, promptLimit)
	switch {
	case p.IntelImport != "":
		// Only an import queues these runs: a run started early would
		// deliver part of an import's changes and mark it delivered.
		problems.Add("intel_import", "is set by Garrison only, for the runs that tell an organization what an import changed")
	case p.Target == "":
		problems.Add("target", "is required: a domain, IP address, file hash, CVE id or vendor (or intel_import)")
	case targetKind(p.Target) == "":
		problems.Add("target", "must be a domain, IP address, MD5/SHA-1/SHA-256 hash, CVE id or vendor name")
	}
}

func enabled(b *bool) bool { return b == nil || *b }

// eventSummary is what the researcher reports of the matching events.
type eventSummary struct {
	Count      int            `json:"count"`
	Capped     bool           `json:"capped"`
	BySeverity map[string]int `json:"by_severity"`
	ByType     map[string]int `json:"by_type"`
	Assets     []string       `json:"assets"`
	FirstSeen  *string        `json:"first_seen"`
	LastSeen   *string        `json:"last_seen"`
	Last24h    int            `json:"last_24h"`
	Recent     []eventBrief   `json:"recent"`
}

type eventBrief struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Severity  string `json:"severity"`
	Asset     string `json:"asset"`
	Message   string `json:"message"`
}

func summarizeEvents(events []event.Event, now time.Time) eventSummary {
	s := eventSummary{Count: len(events), Capped: len(events) == store.MaxMatchedEvents,
		BySeverity: map[string]int{}, ByType: map[string]int{}, Assets: []string{}, Recent: []eventBrief{}}
	assets := map[string]bool{}
	for i, e := range events {
		s.BySeverity[e.Severity.String()]++
		s.ByType[e.Type]++
		assets[e.Asset] = true
		if now.Sub(e.Timestamp) <= 24*time.Hour {
			s.Last24h++
		}
		if i < 10 {
			s.Recent = append(s.Recent, eventBrief{e.ID, timestamp.Format(e.Timestamp), e.Type, e.Severity.String(), e.Asset, e.Message})
		}
	}
	for a := range assets {
		s.Assets = append(s.Assets, a)
	}
	sort.Strings(s.Assets)
	if len(events) > 0 { // newest first
		first, last := timestamp.Format(events[len(events)-1].Timestamp), timestamp.Format(events[0].Timestamp)
		s.FirstSeen, s.LastSeen = &first, &last
	}
	return s
}

type techniqueFinding struct {
	attack.Technique
	Evidence []string `json:"evidence"`
	Events   int      `json:"events"`
}

// mapTechniques maps the research to ATT&CK: for a CVE, its mapping as
// the intelligence store derives it (intel.CVETechniques: the CTID
// mappings of it, else what its weaknesses and vector say); then what the
// matching events show.
func mapTechniques(events []event.Event, target, kind string, cveTechniques []intel.Technique) []techniqueFinding {
	found := map[string]*techniqueFinding{}
	add := func(t attack.Technique, reason string, n int) {
		f, ok := found[t.ID]
		if !ok {
			f = &techniqueFinding{Technique: t}
			found[t.ID] = f
		}
		f.Events += n
		if !slices.Contains(f.Evidence, reason) && len(f.Evidence) < 5 {
			f.Evidence = append(f.Evidence, reason)
		}
	}
	if kind == "cve" {
		id := strings.ToUpper(target)
		if cveTechniques == nil { // the store does not hold it: CTID's mapping still names it
			for _, m := range attack.ForCVE(target) {
				cveTechniques = append(cveTechniques, intel.Technique{ID: m.Technique.ID, Name: m.Technique.Name, Tactics: m.Technique.Tactics,
					URL: m.Technique.URL, Source: "ctid", Role: m.Role})
			}
		}
		for _, t := range cveTechniques {
			reason := "CTID mapping of " + id + " (" + t.Role + ")"
			if t.Source != "ctid" {
				reason = "derived: " + id + ": " + t.Via
			}
			add(attack.Technique{ID: t.ID, Name: t.Name, Tactics: t.Tactics, URL: t.URL}, reason, 0)
		}
	}
	seen := map[string][]attack.Match{}
	for _, e := range events {
		key := e.Type + "\x00" + e.Indicator + "\x00" + e.Message
		matches, ok := seen[key]
		if !ok {
			matches = append(attack.ForEventType(e.Type), attack.ForText(e.Indicator+" "+e.Message)...)
			seen[key] = matches
		}
		for _, m := range matches {
			add(m.Technique, m.Reason, 1)
		}
	}
	out := make([]techniqueFinding, 0, len(found))
	for _, f := range found {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Events != out[j].Events {
			return out[i].Events > out[j].Events
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// riskRating scores what was found, each point with its reason.
func riskRating(ev eventSummary, openAlerts int, dns *store.DomainQueries, cves []CVERecord, techniques int) (int, string, []string) {
	score := 0
	var why []string
	addRisk := func(n int, reason string) {
		score += n
		why = append(why, fmt.Sprintf("+%d: %s", n, reason))
	}
	switch {
	case ev.BySeverity[event.Critical.String()] > 0:
		addRisk(40, "critical events involve the target")
	case ev.BySeverity[event.High.String()] > 0:
		addRisk(30, "high-severity events involve the target")
	case ev.BySeverity[event.Medium.String()] > 0:
		addRisk(15, "medium-severity events involve the target")
	case ev.Count > 0:
		addRisk(5, "low-severity or informational events involve the target")
	}
	if openAlerts > 0 {
		addRisk(min(30, 10*openAlerts), wording.Count(openAlerts, "open alert concerns it", "open alerts concern it"))
	}
	if n := len(ev.Assets); n > 1 {
		addRisk(min(20, 5*n), fmt.Sprintf("%d assets are involved", n))
	}
	if ev.Last24h > 0 {
		addRisk(10, "activity in the last 24 hours")
	}
	if dns != nil && dns.Category == blocklist.CategoryMalware && dns.Count > 0 {
		addRisk(30, "hosts queried it and it is on the malware blocklist")
	}
	for _, c := range cves {
		if c.KnownExploited {
			addRisk(20, c.ID+" is known to be exploited")
			break
		}
	}
	if techniques > 0 && score > 0 {
		addRisk(5, "the activity maps to ATT&CK techniques")
	}
	score = min(100, score)
	rating := "none" // or a severity, the scale alerts use
	switch {
	case score >= 75:
		rating = event.Critical.String()
	case score >= 50:
		rating = event.High.String()
	case score >= 25:
		rating = event.Medium.String()
	case score > 0:
		rating = event.Low.String()
	}
	return score, rating, why
}

func researchThreat(ctx context.Context, env *Env, run store.AgentRun, params Params) (Report, error) {
	p := params.(*threatParams)
	if p.IntelImport != "" {
		return intelUpdate(ctx, env, run, p.IntelImport)
	}
	kind, now := targetKind(p.Target), env.Now()
	events, scanned, err := env.Store.EventsMatching(ctx, run.OrgID, p.Target, now.Add(-researchWindow))
	if err != nil {
		return Report{}, err
	}
	alerts, err := env.Store.AlertsMatching(ctx, run.OrgID, p.Target, 20)
	if err != nil {
		return Report{}, err
	}
	ev := summarizeEvents(events, now)
	out := map[string]any{"target": p.Target, "target_type": kind, "window_days": int(researchWindow.Hours() / 24), "events": ev,
		"events_scanned": scanned, "scan_limit_reached": scanned == store.MaxScannedEvents}

	openAlerts := 0
	alertList := []map[string]any{}
	for _, a := range alerts {
		if a.Status == alerting.Open {
			openAlerts++
		}
		alertList = append(alertList, map[string]any{"id": a.ID, "title": a.Title, "severity": a.Severity.String(),
			"status": a.Status, "asset": a.Asset, "event_count": a.EventCount, "last_seen": timestamp.Format(a.LastSeen)})
	}
	out["alerts"] = alertList

	var dns *store.DomainQueries
	if kind == "domain" {
		d, err := env.Store.DNSQueriesFor(ctx, run.OrgID, strings.ToLower(strings.TrimSuffix(p.Target, ".")), now.Add(-researchWindow))
		if err != nil {
			return Report{}, err
		}
		dns = &d
		out["dns"] = map[string]any{"queries": d.Count, "clients": d.Clients, "blocklist_category": d.Category,
			"first_seen": timestamp.Optional(d.First), "last_seen": timestamp.Optional(d.Last)}
	}

	var cves []CVERecord
	if enabled(p.Options.IncludeCVE) {
		section := map[string]any{"available": env.CVEs != nil}
		if env.CVEs == nil {
			section["note"] = "No local CVE intelligence store is configured yet; CVE matching starts when the CVE watchlist is in use."
		} else if cves, err = lookupCVEs(ctx, env.CVEs, p.Target, kind); err != nil {
			return Report{}, err
		}
		section["matches"] = nonNil(cves)
		out["cves"] = section
	}

	var techniques []techniqueFinding
	if enabled(p.Options.MitreMapping) {
		var cveTechniques []intel.Technique
		if kind == "cve" && env.CVEs != nil {
			c, ok, err := env.CVEs.LookupCVE(ctx, strings.ToUpper(p.Target))
			if err != nil {
				return Report{}, err
			}
			if ok {
				cveTechniques = c.Techniques
			}
		}
		techniques = mapTechniques(events, p.Target, kind, cveTechniques)
		out["mitre_attack"] = map[string]any{"version": attack.Version, "techniques": nonNil(techniques)}
	}

	internal, err := internalTarget(ctx, env, run.OrgID, p.Target, kind, ev)
	if err != nil {
		return Report{}, err
	}
	out["internal"], out["internal_reason"] = internal != "", nil
	if internal != "" {
		out["internal_reason"] = internal
	}

	score, rating, why := riskRating(ev, openAlerts, dns, cves, len(techniques))
	out["risk"] = map[string]any{"score": score, "rating": rating, "factors": nonNil(why)}
	recs := threatRecommendations(p.Target, kind, ev, openAlerts, dns, techniques, internal, cves)
	out["recommendations"] = recs

	summary := researchSummary(researchFacts{target: p.Target, kind: kind, ev: ev, alerts: len(alerts), open: openAlerts, score: score,
		rating: rating, techniques: techniques, dns: dns, internal: internal, scanned: scanned, cves: len(cves), kev: knownExploited(cves)}, recs[0])
	return Report{Output: out, Summary: summary, Task: "a threat research report on " + p.Target}, nil
}

// researchFacts are what the research summary states.
type researchFacts struct {
	target, kind string
	ev           eventSummary
	alerts, open int
	score        int
	rating       string
	techniques   []techniqueFinding
	dns          *store.DomainQueries
	internal     string // why the target is the organization's own; "" when it is not known to be
	scanned      int    // events read; store.MaxScannedEvents when the scan limit stopped the search
	cves, kev    int    // CVEs matched, and how many of them are known to be exploited
}

// researchSummary states what the research found, where its search
// stopped, and the first recommendation.
func researchSummary(f researchFacts, firstRec string) string {
	summary := fmt.Sprintf("Research on %s (%s): %d matching events in the last %d days across %d assets, %d related alerts (%d open). Risk is %s (%d/100).",
		f.target, f.kind, f.ev.Count, int(researchWindow.Hours()/24), len(f.ev.Assets), f.alerts, f.open, f.rating, f.score)
	if f.scanned >= store.MaxScannedEvents {
		summary += fmt.Sprintf(" The search reached its scan limit: it read only the newest %s events of the period, so older matches may be missing.",
			wording.Thousands(store.MaxScannedEvents))
	}
	if f.ev.Capped {
		summary += fmt.Sprintf(" Only the newest %s matching events are counted.", wording.Thousands(store.MaxMatchedEvents))
	}
	if f.internal != "" {
		summary += " " + f.target + " is " + f.internal + ": the organization's own, not an outside party."
	}
	if len(f.techniques) > 0 {
		summary += fmt.Sprintf(" The activity maps to %d ATT&CK techniques, chiefly %s %s.", len(f.techniques), f.techniques[0].ID, f.techniques[0].Name)
	}
	if f.dns != nil && f.dns.Count > 0 {
		summary += fmt.Sprintf(" DNS telemetry shows %d queries from %d clients.", f.dns.Count, f.dns.Clients)
	}
	if f.kev > 0 {
		summary += fmt.Sprintf(" %d of the %s matched %s known to be exploited (CISA KEV).", f.kev, wording.Count(f.cves, "CVE", "CVEs"),
			wording.Agree(f.kev, "is", "are"))
	}
	return summary + " " + firstRec
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// internalAddress says why an address cannot be an outside party's: a
// private (RFC 1918, RFC 4193), loopback, link-local, carrier-grade NAT or
// unspecified address. "" when it may be an outside party's.
func internalAddress(target string) string {
	a, err := netip.ParseAddr(target)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.Is4() && a.IsPrivate():
		return "a private address (RFC 1918)"
	case a.IsPrivate():
		return "a unique local address (RFC 4193)"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case cgnat.Contains(a):
		return "a carrier-grade NAT address (RFC 6598)"
	case a.IsUnspecified():
		return "the unspecified address"
	}
	return ""
}

// internalTarget says why the target is the organization's own: an
// internal address, a host of its inventory, or the asset of the matching
// events (the host Garrison's sensors protect). "" when it is not known to
// be.
func internalTarget(ctx context.Context, env *Env, orgID, target, kind string, ev eventSummary) (string, error) {
	if kind != "ip" && kind != "domain" && kind != "vendor" { // a host name reads as a vendor
		return "", nil
	}
	if why := internalAddress(target); why != "" {
		return why, nil
	}
	host, ok, err := env.Store.InventoryHost(ctx, orgID, strings.TrimSuffix(target, "."))
	if err != nil {
		return "", err
	}
	switch {
	case ok && kind == "ip":
		return "the address of " + host + " in the organization's asset inventory", nil
	case ok:
		return "a host in the organization's asset inventory", nil
	}
	for _, a := range ev.Assets {
		if strings.EqualFold(a, target) {
			return "a host Garrison's sensors watch for the organization", nil
		}
	}
	return "", nil
}

func lookupCVEs(ctx context.Context, intel CVEIntel, target, kind string) ([]CVERecord, error) {
	switch kind {
	case "cve":
		c, ok, err := intel.LookupCVE(ctx, strings.ToUpper(target))
		if err != nil || !ok {
			return nil, err
		}
		return []CVERecord{c}, nil
	case "vendor", "domain":
		return intel.SearchCVEs(ctx, target, 20)
	}
	return nil, nil
}

// threatRecommendations turns the findings into specific next steps, most
// urgent first. There is always at least one. The organization's own host
// or address (internal) is investigated, never blocked as an outside
// threat; a target nothing was seen of is never called harmless.
func threatRecommendations(target, kind string, ev eventSummary, openAlerts int, dns *store.DomainQueries, techniques []techniqueFinding,
	internal string, cves []CVERecord) []string {
	var recs []string
	if openAlerts > 0 {
		recs = append(recs, fmt.Sprintf("Work the %d open alerts about %s first: confirm or dismiss each with a note.", openAlerts, target))
	}
	if dns != nil && dns.Category == blocklist.CategoryMalware && dns.Count > 0 {
		recs = append(recs, fmt.Sprintf("%d clients resolved %s, a known malware domain: isolate them and scan for the payload.", dns.Clients, target))
	}
	if ev.BySeverity[event.Critical.String()]+ev.BySeverity[event.High.String()] > 0 && len(ev.Assets) > 0 {
		recs = append(recs, "Investigate the affected assets: "+strings.Join(firstN(ev.Assets, 5), ", ")+".")
	}
	switch {
	case internal != "" && kind == "ip":
		recs = append(recs, target+" is "+internal+": one of the organization's own hosts or networks, not an outside threat to block. "+
			"Investigate the host instead: find the machine that holds the address, check what it ran and who used it, and isolate it if it is compromised.")
	case internal != "":
		recs = append(recs, target+" is "+internal+", not an outside threat to block: investigate the host instead, "+
			"check what it ran and who used it, and isolate it if it is compromised.")
	case kind == "ip":
		if ev.Count > 0 {
			recs = append(recs, "Block "+target+" at the perimeter firewall if it is not a known business partner, and review flows to it.")
		}
	case kind == "domain":
		if ev.Count > 0 || (dns != nil && dns.Count > 0) {
			recs = append(recs, "Add "+target+" to the DNS blocklist if it has no business use.")
		}
	}
	switch kind {
	case "vendor", "domain":
		if len(cves) > 0 {
			recs = append(recs, fmt.Sprintf("Check the asset inventory for software of %s affected by the %s found (%d known to be exploited) and patch or mitigate it.",
				target, wording.Count(len(cves), "CVE", "CVEs"), knownExploited(cves)))
		}
	case "hash":
		recs = append(recs, "Search endpoints for files with hash "+target+" and quarantine any found.")
	case "cve":
		recs = append(recs, "Check the asset inventory for software affected by "+strings.ToUpper(target)+" and patch or mitigate it.")
	}
	for _, t := range firstN(techniques, 3) {
		if advice, ok := techniqueAdvice[strings.SplitN(t.ID, ".", 2)[0]]; ok {
			recs = append(recs, t.ID+" "+t.Name+": "+advice)
		}
	}
	if len(recs) == 0 {
		recs = append(recs, "Not seen in this organization's data; no intelligence held on "+target+
			". That does not make it safe: re-run this research if it appears in new reports.")
	}
	return recs
}

// techniqueAdvice is the first mitigation for the techniques the event rules find.
var techniqueAdvice = map[string]string{
	"T1046": "restrict internal scanning to authorised hosts and alert on new scanners.",
	"T1595": "reduce the exposed attack surface and rate-limit inbound probes.",
	"T1110": "enforce MFA and account lockout, and block the sources of repeated failures.",
	"T1190": "patch the exposed application and put it behind a web application firewall.",
	"T1071": "inspect outbound traffic from the affected hosts and block the command-and-control endpoints.",
	"T1090": "block anonymising proxies and Tor at the egress firewall.",
	"T1496": "remove the miner, find how it was installed, and watch CPU use on the hosts.",
	"T1566": "quarantine the messages, reset credentials of users who clicked, and retrain them.",
	"T1105": "block downloads of executables from untrusted sites and scan the hosts.",
	"T1486": "isolate the hosts at once and restore from offline backups.",
	"T1003": "reset credentials used on the hosts and enable credential guard.",
	"T1059": "restrict script interpreters with application control and log their use.",
	"T1021": "limit remote administration to a jump host and require MFA for it.",
	"T1041": "review outbound volumes from the hosts and block the destination.",
}

func firstN[T any](s []T, n int) []T { return s[:min(n, len(s))] }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
