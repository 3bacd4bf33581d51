package agents

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/attack"
	"garrison/event"
	"garrison/intel"
	"garrison/store"
	"garrison/valid"
)

func TestTargetKind(t *testing.T) {
	tests := []struct{ target, want string }{
		{"CVE-2021-44228", "cve"},
		{"cve-2021-44228", "cve"},
		{"CVE-2021-123", "vendor"}, // too few digits for a CVE id: read as a name
		{"CVE-2024-1234567", "cve"},
		{"d41d8cd98f00b204e9800998ecf8427e", "hash"},                                 // MD5
		{"DA39A3EE5E6B4B0D3255BFEF95601890AFD80709", "hash"},                         // SHA-1, capitals
		{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "hash"}, // SHA-256
		{"d41d8cd98f00b204e9800998ecf8427", "vendor"},                                // 31 hex digits: a name
		{"10.0.0.1", "ip"},
		{"2001:db8::1", "ip"},
		{"::1", "ip"},
		{"example.com", "domain"},
		{"EXAMPLE.COM", "domain"},
		{"mail.example.co.uk.", "domain"},
		{"xn--bcher-kva.example", "domain"},
		{"a.b", "vendor"}, // a one-letter top-level domain is no domain
		{"localhost", "vendor"},
		{"Acme Corp", "vendor"},
		{"Johnson & Johnson", "vendor"},
		{"", ""},
		{"-acme", ""},
		{"acme;drop", ""},
		{"http://example.com", ""},
		{strings.Repeat("a", 250) + ".com", ""}, // 254 bytes: too long for a domain, a name or anything
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			if got := targetKind(tc.target); got != tc.want {
				t.Errorf("targetKind(%q) = %q, want %q", tc.target, got, tc.want)
			}
		})
	}
}

func TestThreatParamsValidate(t *testing.T) {
	tests := []struct {
		name       string
		p          threatParams
		want       map[string]string
		wantTarget string
	}{
		{"a domain", threatParams{Target: "example.com"}, nil, "example.com"},
		{"target trimmed", threatParams{Target: "  10.0.0.1\n"}, nil, "10.0.0.1"},
		{"prompt at the limit", threatParams{Target: "Acme", Prompt: strings.Repeat("p", promptLimit)}, nil, "Acme"},
		{"no target", threatParams{}, map[string]string{"target": "is required: a domain, IP address, file hash, CVE id or vendor (or intel_import)"}, ""},
		{"blank target", threatParams{Target: "   "}, map[string]string{"target": "is required: a domain, IP address, file hash, CVE id or vendor (or intel_import)"}, ""},
		{"unclassifiable target", threatParams{Target: "a;b"},
			map[string]string{"target": "must be a domain, IP address, MD5/SHA-1/SHA-256 hash, CVE id or vendor name"}, "a;b"},
		{"intel_import is Garrison's", threatParams{Target: "example.com", IntelImport: "imp_1"},
			map[string]string{"intel_import": "is set by Garrison only, for the runs that tell an organization what an import changed"}, "example.com"},
		{"prompt over the limit", threatParams{Target: "example.com", Prompt: strings.Repeat("p", promptLimit+1)},
			map[string]string{"prompt": "must be at most 4000 bytes (it has 4001)"}, "example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p valid.Problems
			tc.p.Validate(&p)
			if got := problemMap(p.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
			if tc.p.Target != tc.wantTarget {
				t.Errorf("target %q, want %q", tc.p.Target, tc.wantTarget)
			}
		})
	}
}

// problemMap is a validation error's field → message, nil for none.
func problemMap(err error) map[string]string {
	if err == nil {
		return nil
	}
	out := map[string]string{}
	for _, p := range err.(*valid.Error).Problems {
		out[p.Field] = p.Message
	}
	return out
}

func TestSummarizeEvents(t *testing.T) {
	now := testNow
	evt := func(id string, sev event.Severity, typ, asset string, ago time.Duration) event.Event {
		return event.Event{ID: id, Severity: sev, Type: typ, Asset: asset, Timestamp: now.Add(-ago), Message: "msg " + id}
	}
	newestFirst := []event.Event{
		evt("e1", event.High, event.TypeThreat, "web-2", time.Hour),
		evt("e2", event.Low, event.TypeBlocked, "web-1", 24*time.Hour),
		evt("e3", event.High, event.TypeThreat, "web-2", 24*time.Hour+time.Second),
		evt("e4", event.Info, event.TypeDNS, "db-1", 30*24*time.Hour),
	}
	first, last := "2026-02-08T15:04:05Z", "2026-03-10T14:04:05Z"
	tests := []struct {
		name   string
		events []event.Event
		want   eventSummary
	}{
		{"no events", nil, eventSummary{BySeverity: map[string]int{}, ByType: map[string]int{}, Assets: []string{}, Recent: []eventBrief{}}},
		{"four events", newestFirst, eventSummary{Count: 4,
			BySeverity: map[string]int{"high": 2, "low": 1, "info": 1},
			ByType:     map[string]int{event.TypeThreat: 2, event.TypeBlocked: 1, event.TypeDNS: 1},
			Assets:     []string{"db-1", "web-1", "web-2"},
			FirstSeen:  &first, LastSeen: &last,
			Last24h: 2, // exactly 24 hours ago counts, a second more does not
			Recent: []eventBrief{
				{"e1", "2026-03-10T14:04:05Z", event.TypeThreat, "high", "web-2", "msg e1"},
				{"e2", "2026-03-09T15:04:05Z", event.TypeBlocked, "low", "web-1", "msg e2"},
				{"e3", "2026-03-09T15:04:04Z", event.TypeThreat, "high", "web-2", "msg e3"},
				{"e4", first, event.TypeDNS, "info", "db-1", "msg e4"},
			}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarizeEvents(tc.events, now); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSummarizeEventsLimits(t *testing.T) {
	many := func(n int) []event.Event {
		out := make([]event.Event, n)
		for i := range out {
			out[i] = event.Event{ID: fmt.Sprint("e", i), Severity: event.Low, Type: event.TypeThreat, Asset: "a", Timestamp: testNow}
		}
		return out
	}
	tests := []struct {
		name       string
		n          int
		wantRecent int
		wantCapped bool
	}{
		{"ten: all recent", 10, 10, false},
		{"eleven: ten recent", 11, 10, false},
		{"just below the match cap", store.MaxMatchedEvents - 1, 10, false},
		{"at the match cap", store.MaxMatchedEvents, 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := summarizeEvents(many(tc.n), testNow)
			if s.Count != tc.n || len(s.Recent) != tc.wantRecent || s.Capped != tc.wantCapped || s.Recent[len(s.Recent)-1].ID != fmt.Sprint("e", tc.wantRecent-1) {
				t.Errorf("count %d, %d recent, capped %v; want %d, %d, %v", s.Count, len(s.Recent), s.Capped, tc.n, tc.wantRecent, tc.wantCapped)
			}
		})
	}
}

type techniqueSummary struct {
	ID       string
	Events   int
	Evidence []string
}

func TestMapTechniques(t *testing.T) {
	threat := func(msg string) event.Event { return event.Event{Type: event.TypeThreat, Message: msg} }
	tests := []struct {
		name   string
		events []event.Event
		target string
		kind   string
		cwes   []string
		want   []techniqueSummary
	}{
		{"nothing", nil, "10.0.0.1", "ip", nil, []techniqueSummary{}},
		{"a threat whose text says nothing", []event.Event{threat("odd traffic")}, "10.0.0.1", "ip", nil, []techniqueSummary{}},
		{"event types and texts, most events first", []event.Event{
			{Type: event.TypeDNS, Message: "odd"},
			threat("ET SCAN Nmap"),
			threat("ET SCAN Nmap"),
			{Type: event.TypeBlocked, Indicator: "1.2.3.4"},
		}, "10.0.0.1", "ip", nil, []techniqueSummary{
			{"T1046", 2, []string{`text mentions "SCAN"`}},
			{"T1071", 1, []string{`event type "blocked_connection"`}},
			{"T1071.004", 1, []string{`event type "dns_anomaly"`}},
		}},
		{"the indicator is read with the message", []event.Event{{Type: event.TypeThreat, Indicator: "mimikatz", Message: "tool seen"}},
			"host", "vendor", nil, []techniqueSummary{{"T1003", 1, []string{`text mentions "mimikatz"`}}}},
		{"evidence kept to five reasons", []event.Event{threat("brute"), threat("failed login"), threat("password spray"),
			threat("credential stuffing"), threat("failed password"), threat("authentication failed"), threat("brute")},
			"x", "vendor", nil, []techniqueSummary{{"T1110", 7, []string{`text mentions "brute"`, `text mentions "failed login"`,
				`text mentions "password spray"`, `text mentions "credential stuffing"`, `text mentions "failed password"`}}}},
		{"a CVE's CTID mappings", nil, "cve-2021-44228", "cve", []string{"CWE-645"}, []techniqueSummary{
			{"T1190", 0, []string{"CTID mapping of CVE-2021-44228 (exploitation)"}},
			{"T1486", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1496", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1505.003", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1608.001", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
		}},
		{"an unmapped CVE's weakness that is how it is reached", nil, "cve-2099-0001", "cve", []string{"CWE-307"}, []techniqueSummary{
			{"T1078", 0, []string{"derived: CVE-2099-0001: CWE-307 → CAPEC-560 Use of Known Domain Credentials"}}}},
		{"an unmapped CVE's weakness that is not: its vector", nil, "cve-2099-0001", "cve", []string{"CWE-645"}, []techniqueSummary{
			{"T1190", 0, []string{"derived: CVE-2099-0001: reachable over the network without user interaction, with high confidentiality, integrity and availability impact"}}}},
		{"weaknesses only count for a CVE", nil, "example.com", "domain", []string{"CWE-645"}, []techniqueSummary{}},
		{"a CVE's events add to its mappings", []event.Event{threat("exploit attempt")}, "CVE-2021-44228", "cve", nil, []techniqueSummary{
			{"T1190", 1, []string{"CTID mapping of CVE-2021-44228 (exploitation)", `text mentions "exploit"`}},
			{"T1486", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1496", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1505.003", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
			{"T1608.001", 0, []string{"CTID mapping of CVE-2021-44228 (secondary_impact)"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := []techniqueSummary{}
			var mapped []intel.Technique
			if tc.kind == "cve" && tc.cwes != nil { // as the store would hold it: a network-reachable, full-impact flaw
				mapped = intel.CVETechniques(&intel.View{ID: strings.ToUpper(tc.target), CWEs: tc.cwes,
					Primary: &intel.Score{Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}})
			}
			for _, f := range mapTechniques(tc.events, tc.target, tc.kind, mapped) {
				if f.Name == "" || f.URL == "" {
					t.Errorf("technique %s without its catalog entry", f.ID)
				}
				got = append(got, techniqueSummary{f.ID, f.Events, f.Evidence})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestRiskRating(t *testing.T) {
	sev := func(name string, assets ...string) eventSummary {
		s := eventSummary{Count: 1, BySeverity: map[string]int{name: 1}, Assets: assets}
		return s
	}
	none := eventSummary{BySeverity: map[string]int{}}
	withAssets := func(n int) eventSummary {
		s := sev("info")
		for i := range n {
			s.Assets = append(s.Assets, fmt.Sprint("host-", i))
		}
		return s
	}
	recent := sev("medium")
	recent.Last24h = 1
	malware := &store.DomainQueries{Count: 2, Category: "malware"}
	kev := []CVERecord{{ID: "CVE-1"}, {ID: "CVE-2", KnownExploited: true}, {ID: "CVE-3", KnownExploited: true}}
	tests := []struct {
		name       string
		ev         eventSummary
		open       int
		dns        *store.DomainQueries
		cves       []CVERecord
		techniques int
		score      int
		rating     string
		why        []string
	}{
		{"nothing", none, 0, nil, nil, 0, 0, "none", nil},
		{"techniques alone add nothing", none, 0, nil, nil, 3, 0, "none", nil},
		{"info events", sev("info"), 0, nil, nil, 0, 5, "low", []string{"+5: low-severity or informational events involve the target"}},
		{"medium events", sev("medium"), 0, nil, nil, 0, 15, "low", []string{"+15: medium-severity events involve the target"}},
		{"high events", sev("high"), 0, nil, nil, 0, 30, "medium", []string{"+30: high-severity events involve the target"}},
		{"critical events", sev("critical"), 0, nil, nil, 0, 40, "medium", []string{"+40: critical events involve the target"}},
		{"one open alert", none, 1, nil, nil, 0, 10, "low", []string{"+10: 1 open alert concerns it"}},
		{"open alerts at the cap", none, 3, nil, nil, 0, 30, "medium", []string{"+30: 3 open alerts concern it"}},
		{"open alerts past the cap", none, 4, nil, nil, 0, 30, "medium", []string{"+30: 4 open alerts concern it"}},
		{"one asset adds nothing", withAssets(1), 0, nil, nil, 0, 5, "low", []string{"+5: low-severity or informational events involve the target"}},
		{"two assets", withAssets(2), 0, nil, nil, 0, 15, "low",
			[]string{"+5: low-severity or informational events involve the target", "+10: 2 assets are involved"}},
		{"four assets at the cap", withAssets(4), 0, nil, nil, 0, 25, "medium",
			[]string{"+5: low-severity or informational events involve the target", "+20: 4 assets are involved"}},
		{"five assets past the cap", withAssets(5), 0, nil, nil, 0, 25, "medium",
			[]string{"+5: low-severity or informational events involve the target", "+20: 5 assets are involved"}},
		{"recent activity", recent, 0, nil, nil, 0, 25, "medium",
			[]string{"+15: medium-severity events involve the target", "+10: activity in the last 24 hours"}},
		{"a malware domain queried", none, 0, malware, nil, 0, 30, "medium", []string{"+30: hosts queried it and it is on the malware blocklist"}},
		{"a malware domain nobody queried", none, 0, &store.DomainQueries{Category: "malware"}, nil, 0, 0, "none", nil},
		{"a tracker queried", none, 0, &store.DomainQueries{Count: 9, Category: "tracker"}, nil, 0, 0, "none", nil},
		{"exploited CVEs count once", none, 0, nil, kev, 0, 20, "low", []string{"+20: CVE-2 is known to be exploited"}},
		{"CVEs not exploited", none, 0, nil, kev[:1], 0, 0, "none", nil},
		{"techniques add to a risk", sev("medium"), 0, nil, nil, 1, 20, "low",
			[]string{"+15: medium-severity events involve the target", "+5: the activity maps to ATT&CK techniques"}},
		{"just below high", sev("high"), 1, nil, nil, 1, 45, "medium", nil},
		{"high at 50", sev("critical"), 1, nil, nil, 0, 50, "high", nil},
		{"just below critical", sev("critical"), 3, nil, nil, 0, 70, "high", nil},
		{"critical at 75", sev("critical"), 3, nil, nil, 1, 75, "critical", nil},
		{"capped at 100", func() eventSummary { s := withAssets(5); s.BySeverity["critical"] = 1; s.Last24h = 3; return s }(), 9, malware, kev, 4,
			100, "critical", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			score, rating, why := riskRating(tc.ev, tc.open, tc.dns, tc.cves, tc.techniques)
			if score != tc.score || rating != tc.rating {
				t.Errorf("risk %d %s, want %d %s (%q)", score, rating, tc.score, tc.rating, why)
			}
			if tc.why != nil && !slices.Equal(why, tc.why) {
				t.Errorf("factors %q, want %q", why, tc.why)
			}
			if tc.score == 0 && why != nil {
				t.Errorf("factors %q for no risk", why)
			}
		})
	}
}

func TestThreatRecommendations(t *testing.T) {
	none := eventSummary{BySeverity: map[string]int{}}
	some := eventSummary{Count: 3, BySeverity: map[string]int{"low": 3}, Assets: []string{"web-1"}}
	severe := eventSummary{Count: 7, BySeverity: map[string]int{"high": 6, "critical": 1},
		Assets: []string{"a1", "a2", "a3", "a4", "a5", "a6"}}
	technique := func(id string) techniqueFinding {
		tq, ok := attack.Lookup(id)
		if !ok {
			t.Fatalf("no technique %s", id)
		}
		return techniqueFinding{Technique: tq}
	}
	// Nothing seen is not "no action is needed": nothing is known.
	quiet := func(target string) string {
		return "Not seen in this organization's data; no intelligence held on " + target +
			". That does not make it safe: re-run this research if it appears in new reports."
	}
	private := func(target, why string) string {
		return target + " is " + why + ": one of the organization's own hosts or networks, not an outside threat to block. " +
			"Investigate the host instead: find the machine that holds the address, check what it ran and who used it, and isolate it if it is compromised."
	}
	tests := []struct {
		name       string
		target     string
		kind       string
		ev         eventSummary
		open       int
		dns        *store.DomainQueries
		techniques []techniqueFinding
		internal   string
		cves       []CVERecord
		want       []string
	}{
		{"a quiet IP", "185.220.101.4", "ip", none, 0, nil, nil, "", nil, []string{quiet("185.220.101.4")}},
		{"a quiet vendor", "Acme", "vendor", none, 0, nil, nil, "", nil, []string{quiet("Acme")}},
		{"a quiet domain", "example.com", "domain", none, 0, &store.DomainQueries{}, nil, "", nil, []string{quiet("example.com")}},
		{"a quiet vendor with CVE intelligence", "Acme", "vendor", none, 0, nil, nil, "",
			[]CVERecord{{ID: "CVE-1"}, {ID: "CVE-2", KnownExploited: true}},
			[]string{"Check the asset inventory for software of Acme affected by the 2 CVEs found (1 known to be exploited) and patch or mitigate it."}},
		{"an outside IP with events", "203.0.113.9", "ip", some, 0, nil, nil, "", nil,
			[]string{"Block 203.0.113.9 at the perimeter firewall if it is not a known business partner, and review flows to it."}},
		{"a private IP with events: investigated, not blocked", "10.0.0.1", "ip", some, 0, nil, nil, "a private address (RFC 1918)", nil,
			[]string{private("10.0.0.1", "a private address (RFC 1918)")}},
		{"a private IP nothing was seen of", "192.168.1.20", "ip", none, 0, nil, nil, "a private address (RFC 1918)", nil,
			[]string{private("192.168.1.20", "a private address (RFC 1918)")}},
		{"an inventory host's public address", "203.0.113.10", "ip", severe, 1, nil, nil,
			"the address of web-1 in the organization's asset inventory", nil, []string{
				"Work the 1 open alerts about 203.0.113.10 first: confirm or dismiss each with a note.",
				"Investigate the affected assets: a1, a2, a3, a4, a5.",
				private("203.0.113.10", "the address of web-1 in the organization's asset inventory")}},
		{"an internal host name", "intranet.acme.example", "domain", some, 0, &store.DomainQueries{Count: 3}, nil,
			"a host in the organization's asset inventory", nil, []string{
				"intranet.acme.example is a host in the organization's asset inventory, not an outside threat to block: investigate the host instead, " +
					"check what it ran and who used it, and isolate it if it is compromised."}},
		{"a domain only queried", "example.com", "domain", none, 0, &store.DomainQueries{Count: 4, Clients: 2}, nil, "", nil,
			[]string{"Add example.com to the DNS blocklist if it has no business use."}},
		{"a hash, even quiet", "d41d8cd98f00b204e9800998ecf8427e", "hash", none, 0, nil, nil, "", nil,
			[]string{"Search endpoints for files with hash d41d8cd98f00b204e9800998ecf8427e and quarantine any found."}},
		{"a CVE, even quiet", "cve-2021-44228", "cve", none, 0, nil, nil, "", nil,
			[]string{"Check the asset inventory for software affected by CVE-2021-44228 and patch or mitigate it."}},
		{"most urgent first", "bad.example", "domain", severe, 2, &store.DomainQueries{Count: 9, Clients: 3, Category: "malware"}, nil, "", nil, []string{
			"Work the 2 open alerts about bad.example first: confirm or dismiss each with a note.",
			"3 clients resolved bad.example, a known malware domain: isolate them and scan for the payload.",
			"Investigate the affected assets: a1, a2, a3, a4, a5.",
			"Add bad.example to the DNS blocklist if it has no business use.",
		}},
		{"low events name no assets", "198.51.100.7", "ip", some, 0, nil, nil, "", nil,
			[]string{"Block 198.51.100.7 at the perimeter firewall if it is not a known business partner, and review flows to it."}},
		{"advice for those of the first three techniques that have some", "Acme", "vendor", none, 0, nil,
			[]techniqueFinding{technique("T1071.004"), technique("T1189"), technique("T1110"), technique("T1046")}, "", nil, []string{
				"T1071.004 DNS: inspect outbound traffic from the affected hosts and block the command-and-control endpoints.",
				"T1110 Brute Force: enforce MFA and account lockout, and block the sources of repeated failures.",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := threatRecommendations(tc.target, tc.kind, tc.ev, tc.open, tc.dns, tc.techniques, tc.internal, tc.cves)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			for _, r := range got {
				if strings.Contains(r, "no action is needed") || tc.internal != "" && strings.Contains(r, "Block ") {
					t.Errorf("misleading recommendation %q", r)
				}
			}
		})
	}
}

// TestInternalAddress: addresses no outside party can hold are named as
// the organization's own; public ones are not.
func TestInternalAddress(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"10.0.0.1", "a private address (RFC 1918)"},
		{"172.16.0.1", "a private address (RFC 1918)"},
		{"172.31.255.255", "a private address (RFC 1918)"},
		{"192.168.1.20", "a private address (RFC 1918)"},
		{"::ffff:192.168.1.20", "a private address (RFC 1918)"},
		{"fd12:3456:789a::1", "a unique local address (RFC 4193)"},
		{"fc00::1", "a unique local address (RFC 4193)"},
		{"127.0.0.1", "a loopback address"},
		{"::1", "a loopback address"},
		{"169.254.10.1", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"100.64.0.1", "a carrier-grade NAT address (RFC 6598)"},
		{"100.127.255.254", "a carrier-grade NAT address (RFC 6598)"},
		{"0.0.0.0", "the unspecified address"},
		{"172.32.0.1", ""},  // just past 172.16/12
		{"100.128.0.1", ""}, // just past 100.64/10
		{"185.220.101.4", ""},
		{"2001:db8::1", ""},
		{"example.com", ""},
	}
	for _, tc := range tests {
		if got := internalAddress(tc.addr); got != tc.want {
			t.Errorf("internalAddress(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestResearchSummary: the summary says where the search stopped (the
// scan limit, the match cap) and when the target is the organization's
// own.
func TestResearchSummary(t *testing.T) {
	base := researchFacts{target: "10.0.0.7", kind: "ip", ev: eventSummary{Count: 2, Assets: []string{"ws-1"}}, alerts: 1, open: 1,
		score: 30, rating: "medium", scanned: 1200}
	const head = "Research on 10.0.0.7 (ip): 2 matching events in the last 90 days across 1 assets, 1 related alerts (1 open). Risk is medium (30/100)."
	limit := " The search reached its scan limit: it read only the newest 200,000 events of the period, so older matches may be missing."
	tests := []struct {
		name   string
		change func(f *researchFacts)
		want   string
	}{
		{"within the limit", func(f *researchFacts) {}, head + " REC"},
		{"one event short of the scan limit", func(f *researchFacts) { f.scanned = store.MaxScannedEvents - 1 }, head + " REC"},
		{"at the scan limit", func(f *researchFacts) { f.scanned = store.MaxScannedEvents }, head + limit + " REC"},
		{"at the match cap too", func(f *researchFacts) { f.scanned, f.ev.Capped = store.MaxScannedEvents, true },
			head + limit + " Only the newest 10,000 matching events are counted. REC"},
		{"the organization's own", func(f *researchFacts) { f.internal = "a private address (RFC 1918)" },
			head + " 10.0.0.7 is a private address (RFC 1918): the organization's own, not an outside party. REC"},
		{"known-exploited CVEs", func(f *researchFacts) { f.cves, f.kev = 3, 1 },
			head + " 1 of the 3 CVEs matched is known to be exploited (CISA KEV). REC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := base
			tc.change(&f)
			if got := researchSummary(f, "REC"); got != tc.want {
				t.Errorf("summary\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
