package posture

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"garrison/compliance"
	"garrison/event"
	"garrison/intel"
	"garrison/store"
)

var testNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// cleanFacts are the facts of an organization nothing costs points: one
// source reporting an hour ago, allowed DNS queries, nothing open.
func cleanFacts() Facts {
	return Facts{
		Now:     testNow,
		Sources: []store.Source{{Name: "suricata", Count: 5, LastSeen: testNow.Add(-time.Hour)}},
		DNS7d:   map[string]int{"": 10},
	}
}

// input finds a sub-score's input by name.
func input(t *testing.T, s *SubScore, name string) Input {
	t.Helper()
	for _, in := range s.Inputs {
		if in.Name == name {
			return in
		}
	}
	t.Fatalf("no input %q in %+v", name, s.Inputs)
	return Input{}
}

func inputNames(s *SubScore) []string {
	var names []string
	for _, in := range s.Inputs {
		names = append(names, in.Name)
	}
	return names
}

// assessedScore is a sub-score's value, failing when it is not assessed.
func assessedScore(t *testing.T, s *SubScore) int {
	t.Helper()
	if !s.Assessed || s.Score == nil {
		t.Fatalf("sub-score not assessed: %+v", s)
	}
	return *s.Score
}

func TestThreatsSubScore(t *testing.T) {
	tests := []struct {
		name        string
		open        event.Counts
		highEvents  int
		input       string
		wantValue   int
		wantPenalty int
		wantScore   int
	}{
		{"nothing open", event.Counts{}, 0, "open_critical_alerts", 0, 0, 100},
		{"info alerts cost nothing", event.Counts{event.Info: 100}, 0, "open_low_alerts", 0, 0, 100},
		{"one low alert", event.Counts{event.Low: 1}, 0, "open_low_alerts", 1, 1, 99},
		{"low just below the cap", event.Counts{event.Low: 59}, 0, "open_low_alerts", 59, 59, 41},
		{"low at the cap", event.Counts{event.Low: 60}, 0, "open_low_alerts", 60, 60, 40},
		{"low above the cap", event.Counts{event.Low: 61}, 0, "open_low_alerts", 61, 60, 40},
		{"one medium alert", event.Counts{event.Medium: 1}, 0, "open_medium_alerts", 1, 3, 97},
		{"medium just below the cap", event.Counts{event.Medium: 19}, 0, "open_medium_alerts", 19, 57, 43},
		{"medium at the cap", event.Counts{event.Medium: 20}, 0, "open_medium_alerts", 20, 60, 40},
		{"medium above the cap", event.Counts{event.Medium: 21}, 0, "open_medium_alerts", 21, 60, 40},
		{"one high alert", event.Counts{event.High: 1}, 0, "open_high_alerts", 1, 10, 90},
		{"high just below the cap", event.Counts{event.High: 5}, 0, "open_high_alerts", 5, 50, 50},
		{"high at the cap", event.Counts{event.High: 6}, 0, "open_high_alerts", 6, 60, 40},
		{"high above the cap", event.Counts{event.High: 7}, 0, "open_high_alerts", 7, 60, 40},
		{"one critical alert", event.Counts{event.Critical: 1}, 0, "open_critical_alerts", 1, 25, 75},
		{"critical below the cap", event.Counts{event.Critical: 2}, 0, "open_critical_alerts", 2, 50, 50},
		{"critical past the cap", event.Counts{event.Critical: 3}, 0, "open_critical_alerts", 3, 60, 40},
		{"high events below ten", event.Counts{}, 9, "high_or_critical_events_7d", 9, 0, 100},
		{"high events at ten", event.Counts{}, 10, "high_or_critical_events_7d", 10, 1, 99},
		{"high events above ten", event.Counts{}, 11, "high_or_critical_events_7d", 11, 1, 99},
		{"high events nineteen", event.Counts{}, 19, "high_or_critical_events_7d", 19, 1, 99},
		{"high events just below the cap", event.Counts{}, 199, "high_or_critical_events_7d", 199, 19, 81},
		{"high events at the cap", event.Counts{}, 200, "high_or_critical_events_7d", 200, 20, 80},
		{"high events above the cap", event.Counts{}, 201, "high_or_critical_events_7d", 201, 20, 80},
		{"every cap: floored at 0", event.Counts{event.Low: 60, event.Medium: 20, event.High: 6, event.Critical: 3}, 200,
			"open_low_alerts", 60, 60, 0},
		{"penalties add up", event.Counts{event.Low: 2, event.Medium: 1, event.High: 1, event.Critical: 1}, 30,
			"open_medium_alerts", 1, 3, 100 - 2 - 3 - 10 - 25 - 3},
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cleanFacts()
			f.OpenAlerts, f.HighEvents7d = tc.open, tc.highEvents
			th := Compute(f).SubScores["threats"]
			want := []string{"open_critical_alerts", "open_high_alerts", "open_medium_alerts", "open_low_alerts", "confirmed_alerts_7d",
				"high_or_critical_events_7d"}
			if got := inputNames(th); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("inputs %v, want %v", got, want)
			}
			in := input(t, th, tc.input)
			if in.Value != tc.wantValue || in.Penalty != tc.wantPenalty {
				t.Errorf("%s: value %v penalty %d, want value %d penalty %d", tc.input, in.Value, in.Penalty, tc.wantValue, tc.wantPenalty)
			}
			if got := assessedScore(t, th); got != tc.wantScore {
				t.Errorf("threats score %d, want %d", got, tc.wantScore)
			}
		})
	}
}

func TestThreatsExplanations(t *testing.T) {
	th := Compute(cleanFacts()).SubScores["threats"]
	tests := []struct{ name, want string }{
		{"open_critical_alerts", "each open critical alert costs 25"},
		{"open_high_alerts", "each open high alert costs 10"},
		{"open_medium_alerts", "each open medium alert costs 3"},
		{"open_low_alerts", "each open low alert costs 1"},
		{"high_or_critical_events_7d", "one point per ten high or critical events in the last seven days, at most 20"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := input(t, th, tc.name).Explain; got != tc.want {
				t.Errorf("explanation %q, want %q", got, tc.want)
			}
		})
	}
	if th.Summary != "Open alerts weighted by severity, and recent high-severity activity" {
		t.Errorf("summary %q", th.Summary)
	}
}

func TestIdentitySubScore(t *testing.T) {
	tests := []struct {
		name        string
		id          store.IdentityFacts
		input       string
		wantValue   int
		wantPenalty int
		wantScore   int
	}{
		{"clean", store.IdentityFacts{Members: 1, Admins: 1}, "unverified_users", 0, 0, 100},
		{"one unverified user", store.IdentityFacts{Unverified: 1}, "unverified_users", 1, 5, 95},
		{"unverified just below the cap", store.IdentityFacts{Unverified: 3}, "unverified_users", 3, 15, 85},
		{"unverified at the cap", store.IdentityFacts{Unverified: 4}, "unverified_users", 4, 20, 80},
		{"unverified above the cap", store.IdentityFacts{Unverified: 5}, "unverified_users", 5, 20, 80},
		{"one admin key without expiry", store.IdentityFacts{AdminKeysNoExpiry: 1}, "admin_keys_without_expiry", 1, 10, 90},
		{"admin keys just below the cap", store.IdentityFacts{AdminKeysNoExpiry: 2}, "admin_keys_without_expiry", 2, 20, 80},
		{"admin keys at the cap", store.IdentityFacts{AdminKeysNoExpiry: 3}, "admin_keys_without_expiry", 3, 30, 70},
		{"admin keys above the cap", store.IdentityFacts{AdminKeysNoExpiry: 4}, "admin_keys_without_expiry", 4, 30, 70},
		{"one dormant key", store.IdentityFacts{KeysDormant: 1}, "keys_unused_90_days", 1, 5, 95},
		{"dormant just below the cap", store.IdentityFacts{KeysDormant: 3}, "keys_unused_90_days", 3, 15, 85},
		{"dormant at the cap", store.IdentityFacts{KeysDormant: 4}, "keys_unused_90_days", 4, 20, 80},
		{"dormant above the cap", store.IdentityFacts{KeysDormant: 5}, "keys_unused_90_days", 5, 20, 80},
		{"three users all admins: too few users to count", store.IdentityFacts{Members: 3, Admins: 3}, "admins", 3, 0, 100},
		{"four users, half admins", store.IdentityFacts{Members: 4, Admins: 2}, "admins", 2, 0, 100},
		{"four users, three admins", store.IdentityFacts{Members: 4, Admins: 3}, "admins", 3, 10, 90},
		{"four users, all admins", store.IdentityFacts{Members: 4, Admins: 4}, "admins", 4, 10, 90},
		{"five users, three admins", store.IdentityFacts{Members: 5, Admins: 3}, "admins", 3, 10, 90},
		{"six users, three admins", store.IdentityFacts{Members: 6, Admins: 3}, "admins", 3, 0, 100},
		{"every cap", store.IdentityFacts{Members: 4, Admins: 4, Unverified: 9, AdminKeysNoExpiry: 9, KeysDormant: 9}, "admins", 4, 10, 20},
		{"active and expiring keys cost nothing", store.IdentityFacts{ActiveKeys: 7, KeysExpiringSoon: 7}, "unverified_users", 0, 0, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cleanFacts()
			f.Identity = tc.id
			id := Compute(f).SubScores["identity"]
			want := "unverified_users,admin_keys_without_expiry,keys_unused_90_days,admins"
			if got := strings.Join(inputNames(id), ","); got != want {
				t.Fatalf("inputs %s, want %s", got, want)
			}
			in := input(t, id, tc.input)
			if in.Value != tc.wantValue || in.Penalty != tc.wantPenalty {
				t.Errorf("%s: value %v penalty %d, want value %d penalty %d", tc.input, in.Value, in.Penalty, tc.wantValue, tc.wantPenalty)
			}
			if got := assessedScore(t, id); got != tc.wantScore {
				t.Errorf("identity score %d, want %d", got, tc.wantScore)
			}
		})
	}
}

func TestIdentityExplanations(t *testing.T) {
	id := Compute(cleanFacts()).SubScores["identity"]
	tests := []struct{ name, want string }{
		{"unverified_users", "each user with an unconfirmed e-mail address costs 5"},
		{"admin_keys_without_expiry", "each admin-scope API key that never expires costs 10"},
		{"keys_unused_90_days", "each active API key unused for 90 days costs 5"},
		{"admins", "more than half of four or more users being admins costs 10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := input(t, id, tc.name).Explain; got != tc.want {
				t.Errorf("explanation %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNetworkSubScore(t *testing.T) {
	seen := func(ago time.Duration) store.Source {
		return store.Source{Name: fmt.Sprint("s", ago), LastSeen: testNow.Add(-ago)}
	}
	tests := []struct {
		name        string
		sources     []store.Source
		dns         map[string]int
		input       string
		wantValue   int
		wantPenalty int
		wantScore   int
	}{
		{"a source reporting and DNS", []store.Source{seen(time.Hour)}, map[string]int{"": 1}, "event_sources_reporting_24h", 1, 0, 100},
		{"no source at all", nil, map[string]int{"": 1}, "event_sources_reporting_24h", 0, 40, 60},
		{"source seen exactly 24 hours ago reports", []store.Source{seen(24 * time.Hour)}, map[string]int{"": 1},
			"event_sources_reporting_24h", 1, 0, 100},
		{"source seen just over 24 hours ago is silent", []store.Source{seen(24*time.Hour + time.Second)}, map[string]int{"": 1},
			"event_sources_reporting_24h", 0, 40, 60},
		{"one of two sources reporting", []store.Source{seen(48 * time.Hour), seen(time.Minute)}, map[string]int{"": 1},
			"event_sources_reporting_24h", 1, 0, 100},
		{"no DNS telemetry", []store.Source{seen(time.Hour)}, nil, "dns_queries_7d", 0, 20, 80},
		{"DNS counts of zero are no telemetry", []store.Source{seen(time.Hour)}, map[string]int{"": 0, "malware": 0}, "dns_queries_7d", 0, 20, 80},
		{"DNS queries of every category add up", []store.Source{seen(time.Hour)}, map[string]int{"": 3, "tracker": 2, "malware": 1},
			"dns_queries_7d", 6, 0, 96},
		{"trackers cost nothing", []store.Source{seen(time.Hour)}, map[string]int{"tracker": 50}, "malware_domains_queried_7d", 0, 0, 100},
		{"one malware query", []store.Source{seen(time.Hour)}, map[string]int{"malware": 1}, "malware_domains_queried_7d", 1, 4, 96},
		{"malware just below the cap", []store.Source{seen(time.Hour)}, map[string]int{"malware": 9}, "malware_domains_queried_7d", 9, 36, 64},
		{"malware at the cap", []store.Source{seen(time.Hour)}, map[string]int{"malware": 10}, "malware_domains_queried_7d", 10, 40, 60},
		{"malware above the cap", []store.Source{seen(time.Hour)}, map[string]int{"malware": 11}, "malware_domains_queried_7d", 11, 40, 60},
		{"nothing watched", nil, nil, "dns_queries_7d", 0, 20, 40},
		{"worst case", nil, map[string]int{"malware": 100}, "malware_domains_queried_7d", 100, 40, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cleanFacts()
			f.Sources, f.DNS7d = tc.sources, tc.dns
			nw := Compute(f).SubScores["network"]
			want := "event_sources_reporting_24h,dns_queries_7d,malware_domains_queried_7d"
			if got := strings.Join(inputNames(nw), ","); got != want {
				t.Fatalf("inputs %s, want %s", got, want)
			}
			in := input(t, nw, tc.input)
			if in.Value != tc.wantValue || in.Penalty != tc.wantPenalty {
				t.Errorf("%s: value %v penalty %d, want value %d penalty %d", tc.input, in.Value, in.Penalty, tc.wantValue, tc.wantPenalty)
			}
			if got := assessedScore(t, nw); got != tc.wantScore {
				t.Errorf("network score %d, want %d", got, tc.wantScore)
			}
		})
	}
}

func TestReportingSources(t *testing.T) {
	tests := []struct {
		name string
		ago  []time.Duration
		want int
	}{
		{"none", nil, 0},
		{"just now", []time.Duration{0}, 1},
		{"exactly a day ago", []time.Duration{24 * time.Hour}, 1},
		{"a nanosecond over a day ago", []time.Duration{24*time.Hour + time.Nanosecond}, 0},
		{"mixed", []time.Duration{time.Hour, 25 * time.Hour, 23 * time.Hour, 30 * 24 * time.Hour}, 2},
		{"in the future counts", []time.Duration{-time.Hour}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Facts{Now: testNow}
			for i, ago := range tc.ago {
				f.Sources = append(f.Sources, store.Source{Name: fmt.Sprint(i), LastSeen: testNow.Add(-ago)})
			}
			if got := f.ReportingSources(); got != tc.want {
				t.Errorf("ReportingSources() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestDNSQueries7d(t *testing.T) {
	tests := []struct {
		name string
		dns  map[string]int
		want int
	}{
		{"nil", nil, 0},
		{"allowed only", map[string]int{"": 7}, 7},
		{"every category", map[string]int{"": 7, "malware": 2, "tracker": 3}, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Facts{DNS7d: tc.dns}).DNSQueries7d(); got != tc.want {
				t.Errorf("DNSQueries7d() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestVulnerabilityNotAssessed(t *testing.T) {
	tests := []struct {
		name  string
		items []intel.ExposureItem
		want  string
	}{
		{"empty watchlist", nil, "No finding is open and no CVE is on the watchlist"},
		{"nothing enriched", []intel.ExposureItem{{CVEID: "CVE-2024-0001", KEV: true, Affected: 3, Score: 10}},
			"No watched CVE has intelligence yet; import NVD or CVE 5 data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := vulnerabilityScore(tc.items)
			if s.Assessed || s.Score != nil || s.Summary != tc.want || s.Inputs == nil || len(s.Inputs) != 0 {
				t.Errorf("got %+v, want not assessed: %q with no inputs", s, tc.want)
			}
		})
	}
}

func TestVulnerabilityClassification(t *testing.T) {
	const (
		kev         = "kev_cves_with_affected_assets"
		critical    = "critical_cves_with_affected_assets"
		high        = "high_cves_with_affected_assets"
		unconfirmed = "kev_or_critical_cves_without_matched_assets"
	)
	tests := []struct {
		name      string
		item      intel.ExposureItem
		input     string // "" when no input counts it
		penalty   int
		wantScore int
	}{
		{"KEV affecting an asset", intel.ExposureItem{KEV: true, Affected: 1, Score: 5}, kev, 25, 75},
		{"KEV beats a critical score", intel.ExposureItem{KEV: true, Affected: 2, Score: 10}, kev, 25, 75},
		{"critical score 9.0 affecting an asset", intel.ExposureItem{Affected: 1, Score: 9}, critical, 15, 85},
		{"score 8.9 affecting an asset is high", intel.ExposureItem{Affected: 1, Score: 8.9}, high, 5, 95},
		{"score 7.0 affecting an asset is high", intel.ExposureItem{Affected: 1, Score: 7}, high, 5, 95},
		{"score 6.9 affecting an asset costs nothing", intel.ExposureItem{Affected: 1, Score: 6.9}, "", 0, 100},
		{"EPSS 0.5 affecting an asset weighs as critical", intel.ExposureItem{Affected: 1, Score: 5, EPSS: ptr(0.5)}, critical, 15, 85},
		{"EPSS 0.49 does not", intel.ExposureItem{Affected: 1, Score: 5, EPSS: ptr(0.49)}, "", 0, 100},
		{"no score affecting an asset costs nothing", intel.ExposureItem{Affected: 1, Score: -1}, "", 0, 100},
		{"KEV without affected assets", intel.ExposureItem{KEV: true}, unconfirmed, 2, 98},
		{"critical 9.0 without affected assets", intel.ExposureItem{Score: 9}, unconfirmed, 2, 98},
		{"score 8.9 without affected assets costs nothing", intel.ExposureItem{Score: 8.9}, "", 0, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.item.CVEID, tc.item.Enriched = "CVE-2024-1234", true
			s := vulnerabilityScore([]intel.ExposureItem{tc.item})
			want := []string{kev, critical, high, unconfirmed}
			if got := inputNames(s); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("inputs %v, want %v", got, want)
			}
			for _, name := range want {
				in := input(t, s, name)
				wantValue, wantPenalty, wantList := 0, 0, "none"
				if name == tc.input {
					wantValue, wantPenalty, wantList = 1, tc.penalty, "CVE-2024-1234"
				}
				if in.Value != wantValue || in.Penalty != wantPenalty || !strings.HasSuffix(in.Explain, ": "+wantList) {
					t.Errorf("%s: value %v penalty %d explanation %q; want value %d penalty %d listing %s",
						name, in.Value, in.Penalty, in.Explain, wantValue, wantPenalty, wantList)
				}
			}
			if got := assessedScore(t, s); got != tc.wantScore {
				t.Errorf("score %d, want %d", got, tc.wantScore)
			}
			if want := "1 CVEs with intelligence (open findings and watched CVEs), weighed by exploitation, severity and affected assets"; s.Summary != want {
				t.Errorf("summary %q, want %q", s.Summary, want)
			}
		})
	}
}

func TestVulnerabilityCaps(t *testing.T) {
	items := func(n int, it intel.ExposureItem) []intel.ExposureItem {
		var out []intel.ExposureItem
		for i := range n {
			it.CVEID, it.Enriched = fmt.Sprintf("CVE-2024-%04d", i), true
			out = append(out, it)
		}
		return out
	}
	kevIt := intel.ExposureItem{KEV: true, Affected: 1}
	critIt := intel.ExposureItem{Affected: 1, Score: 9.8}
	highIt := intel.ExposureItem{Affected: 1, Score: 7.5}
	unconfIt := intel.ExposureItem{Score: 9.1}
	tests := []struct {
		name      string
		items     []intel.ExposureItem
		input     string
		value     int
		penalty   int
		wantScore int
	}{
		{"KEV below the cap", items(2, kevIt), "kev_cves_with_affected_assets", 2, 50, 50},
		{"KEV past the cap", items(3, kevIt), "kev_cves_with_affected_assets", 3, 60, 40},
		{"critical below the cap", items(2, critIt), "critical_cves_with_affected_assets", 2, 30, 70},
		{"critical at the cap", items(3, critIt), "critical_cves_with_affected_assets", 3, 45, 55},
		{"critical above the cap", items(4, critIt), "critical_cves_with_affected_assets", 4, 45, 55},
		{"high below the cap", items(3, highIt), "high_cves_with_affected_assets", 3, 15, 85},
		{"high at the cap", items(4, highIt), "high_cves_with_affected_assets", 4, 20, 80},
		{"high above the cap", items(5, highIt), "high_cves_with_affected_assets", 5, 20, 80},
		{"unconfirmed below the cap", items(4, unconfIt), "kev_or_critical_cves_without_matched_assets", 4, 8, 92},
		{"unconfirmed at the cap", items(5, unconfIt), "kev_or_critical_cves_without_matched_assets", 5, 10, 90},
		{"unconfirmed above the cap", items(6, unconfIt), "kev_or_critical_cves_without_matched_assets", 6, 10, 90},
		{"every cap: floored at 0", append(append(append(items(3, kevIt), items(3, critIt)...), items(4, highIt)...), items(5, unconfIt)...),
			"high_cves_with_affected_assets", 4, 20, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := vulnerabilityScore(tc.items)
			in := input(t, s, tc.input)
			if in.Value != tc.value || in.Penalty != tc.penalty {
				t.Errorf("%s: value %v penalty %d, want value %d penalty %d", tc.input, in.Value, in.Penalty, tc.value, tc.penalty)
			}
			if got := assessedScore(t, s); got != tc.wantScore {
				t.Errorf("score %d, want %d", got, tc.wantScore)
			}
		})
	}
}

func TestVulnerabilityIgnoresUnenriched(t *testing.T) {
	s := vulnerabilityScore([]intel.ExposureItem{
		{CVEID: "CVE-2024-0001", Enriched: true, Score: 4},
		{CVEID: "CVE-2024-0002", KEV: true, Affected: 5, Score: 10}, // no intelligence yet
	})
	if got := assessedScore(t, s); got != 100 {
		t.Errorf("score %d, want 100: an unenriched CVE costs nothing", got)
	}
	if want := "1 CVEs with intelligence (open findings and watched CVEs), weighed by exploitation, severity and affected assets"; s.Summary != want {
		t.Errorf("summary %q, want %q", s.Summary, want)
	}
}

func TestListOrNone(t *testing.T) {
	ids := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprint("C", i))
		}
		return out
	}
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"none", nil, "none"},
		{"one", ids(1), "C0"},
		{"ten: all listed", ids(10), "C0, C1, C2, C3, C4, C5, C6, C7, C8, C9"},
		{"eleven: ten and one more", ids(11), "C0, C1, C2, C3, C4, C5, C6, C7, C8, C9 and 1 more"},
		{"twelve: ten and two more", ids(12), "C0, C1, C2, C3, C4, C5, C6, C7, C8, C9 and 2 more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := listOrNone(tc.ids); got != tc.want {
				t.Errorf("listOrNone = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestComplianceSubScore(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	fw := func(id string, pct int) AuditedFramework {
		return AuditedFramework{Framework: id, Name: strings.ToUpper(id), Summary: compliance.Summary{CompletionPercentage: pct},
			ReportID: "rpt_" + id, AuditedAt: at}
	}
	tests := []struct {
		name      string
		audited   []AuditedFramework
		penalties []int
		wantScore int
	}{
		{"one framework complete", []AuditedFramework{fw("soc2", 100)}, []int{0}, 100},
		{"one framework at 80%", []AuditedFramework{fw("soc2", 80)}, []int{20}, 80},
		{"one framework at 0%", []AuditedFramework{fw("soc2", 0)}, []int{100}, 0},
		{"two frameworks share the shortfall", []AuditedFramework{fw("soc2", 80), fw("cis", 60)}, []int{10, 20}, 70},
		{"a half point rounds away from zero", []AuditedFramework{fw("soc2", 75), fw("cis", 100)}, []int{13, 0}, 87},
		{"a third of a point rounds down", []AuditedFramework{fw("soc2", 90), fw("hipaa", 100), fw("cis", 100)}, []int{3, 0, 0}, 97},
		{"two thirds of a point round up", []AuditedFramework{fw("soc2", 80), fw("hipaa", 100), fw("cis", 100)}, []int{7, 0, 0}, 93},
		{"four frameworks", []AuditedFramework{fw("soc2", 60), fw("hipaa", 80), fw("nist", 100), fw("cis", 0)}, []int{10, 5, 0, 25}, 60},
		// Shares add up to the rounded mean shortfall: rounded one by one,
		// three frameworks at 99% would cost nothing and read 100.
		{"three at 99% cost one point together", []AuditedFramework{fw("soc2", 99), fw("hipaa", 99), fw("cis", 99)}, []int{1, 0, 0}, 99},
		{"four at 99% cost one point together", []AuditedFramework{fw("soc2", 99), fw("hipaa", 99), fw("nist", 99), fw("cis", 99)}, []int{1, 0, 0, 0}, 99},
		{"the largest remainder takes the point", []AuditedFramework{fw("soc2", 98), fw("hipaa", 99), fw("cis", 100)}, []int{1, 0, 0}, 99},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := complianceScore(tc.audited)
			if len(s.Inputs) != len(tc.audited) {
				t.Fatalf("%d inputs, want %d", len(s.Inputs), len(tc.audited))
			}
			for i, a := range tc.audited {
				in := s.Inputs[i]
				if in.Name != a.Framework+"_completion_percentage" || in.Value != a.Summary.CompletionPercentage || in.Penalty != tc.penalties[i] {
					t.Errorf("input %d: %s = %v costs %d; want %s_completion_percentage = %d costing %d",
						i, in.Name, in.Value, in.Penalty, a.Framework, a.Summary.CompletionPercentage, tc.penalties[i])
				}
			}
			if got := assessedScore(t, s); got != tc.wantScore {
				t.Errorf("score %d, want %d", got, tc.wantScore)
			}
			if s.Summary != "Completion of the audited compliance frameworks (latest audit of each)" {
				t.Errorf("summary %q", s.Summary)
			}
		})
	}
	t.Run("explanation names the audit", func(t *testing.T) {
		s := complianceScore([]AuditedFramework{fw("soc2", 80), fw("cis", 60)})
		want := "SOC2: 80% of applicable controls pass in audit rpt_soc2 (2026-03-01T09:30:00Z); the 20-point shortfall costs its share of 2 audited frameworks"
		if got := s.Inputs[0].Explain; got != want {
			t.Errorf("explanation %q, want %q", got, want)
		}
	})
	t.Run("none audited", func(t *testing.T) {
		s := complianceScore(nil)
		if s.Assessed || s.Score != nil || s.Summary != "No compliance audit has completed yet" || len(s.Inputs) != 0 {
			t.Errorf("got %+v, want not assessed", s)
		}
	})
}

func TestComputeWeightsAndTotal(t *testing.T) {
	enrichedClean := []intel.ExposureItem{{CVEID: "CVE-2024-0001", Enriched: true, Score: 3}}
	audited := func(pct int) []AuditedFramework {
		return []AuditedFramework{{Framework: "soc2", Name: "SOC 2", Summary: compliance.Summary{CompletionPercentage: pct}, AuditedAt: testNow}}
	}
	tests := []struct {
		name      string
		change    func(f *Facts)
		wantScore int
		wantGrade string
	}{
		{"clean, three sub-scores assessed", func(f *Facts) {}, 100, "A"},
		{"clean, all five assessed", func(f *Facts) { f.Exposure, f.Compliance = enrichedClean, audited(100) }, 100, "A"},
		// (0.35×50 + 0.15×100 + 0.15×100) / 0.65 = 73.08
		{"threats at 50, re-weighted over three", func(f *Facts) { f.OpenAlerts[event.Critical] = 2 }, 73, "C"},
		// threats 49: 0.35×49 + 0.20×100 + 0.15×100×3 = 82.15
		{"threats at 49, all five assessed", func(f *Facts) {
			f.Exposure, f.Compliance = enrichedClean, audited(100)
			f.OpenAlerts[event.Critical], f.OpenAlerts[event.Low] = 2, 1
		}, 82, "B"},
		// 100 − 0.15×40 = 94
		{"compliance at 60 costs its 15%", func(f *Facts) { f.Exposure, f.Compliance = enrichedClean, audited(60) }, 94, "A"},
		// vulnerabilities 40: 0.35×100 + 0.20×40 + 0.15×100×3 = 88
		{"three KEV CVEs cost the vulnerabilities' 20%", func(f *Facts) {
			f.Compliance = audited(100)
			for i := range 3 {
				f.Exposure = append(f.Exposure, intel.ExposureItem{CVEID: fmt.Sprint("CVE-2024-000", i), Enriched: true, KEV: true, Affected: 1})
			}
		}, 88, "B"},
		// (35 + 15 + 0.15×40) / 0.65 = 86.15
		{"nothing watched", func(f *Facts) { f.Sources, f.DNS7d = nil, nil }, 86, "B"},
		// threats 81: (0.35×81 + 30) / 0.65 = 89.77
		{"grade A from 89.77 rounded", func(f *Facts) { f.OpenAlerts[event.Low] = 19 }, 90, "A"},
		// threats 80: (0.35×80 + 30) / 0.65 = 89.23
		{"grade B from 89.23 rounded", func(f *Facts) { f.OpenAlerts[event.Low] = 20 }, 89, "B"},
		// threats 0, identity 20, network 20: (0 + 3 + 3) / 0.65 = 9.23
		{"worst of everything", func(f *Facts) {
			f.OpenAlerts = event.Counts{event.Low: 60, event.Medium: 20, event.High: 6, event.Critical: 3}
			f.HighEvents7d = 500
			f.Identity = store.IdentityFacts{Members: 4, Admins: 4, Unverified: 9, AdminKeysNoExpiry: 9, KeysDormant: 9}
			f.Sources, f.DNS7d = nil, map[string]int{"malware": 10}
		}, 9, "F"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cleanFacts()
			tc.change(&f)
			s := Compute(f)
			if s.Score != tc.wantScore || s.Grade != tc.wantGrade {
				t.Errorf("score %d grade %s, want %d %s", s.Score, s.Grade, tc.wantScore, tc.wantGrade)
			}
			wantWeights := map[string]float64{"threats": 0.35, "vulnerabilities": 0.20, "compliance": 0.15, "identity": 0.15, "network": 0.15}
			if len(s.SubScores) != len(wantWeights) {
				t.Errorf("%d sub-scores, want %d", len(s.SubScores), len(wantWeights))
			}
			for name, w := range wantWeights {
				if sub := s.SubScores[name]; sub == nil || sub.Weight != w {
					t.Errorf("sub-score %s: %+v, want weight %v", name, sub, w)
				}
			}
			if s.Computed != "2026-03-10T12:00:00Z" {
				t.Errorf("computed_at %q", s.Computed)
			}
		})
	}
}

func TestComputeNotAssessedLeftOut(t *testing.T) {
	s := Compute(cleanFacts())
	for _, name := range []string{"vulnerabilities", "compliance"} {
		if sub := s.SubScores[name]; sub.Assessed || sub.Score != nil {
			t.Errorf("%s assessed without facts: %+v", name, sub)
		}
	}
}

func TestGrade(t *testing.T) {
	tests := []struct {
		score int
		want  string
	}{
		{100, "A"}, {91, "A"}, {90, "A"}, {89, "B"},
		{81, "B"}, {80, "B"}, {79, "C"},
		{71, "C"}, {70, "C"}, {69, "D"},
		{61, "D"}, {60, "D"}, {59, "F"},
		{1, "F"}, {0, "F"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.score), func(t *testing.T) {
			if got := grade(tc.score); got != tc.want {
				t.Errorf("grade(%d) = %s, want %s", tc.score, got, tc.want)
			}
		})
	}
}

func TestDayRisk(t *testing.T) {
	tests := []struct {
		name string
		c    event.Counts
		want int
	}{
		{"no events", event.Counts{}, 0},
		{"info events weigh nothing", event.Counts{event.Info: 1000}, 0},
		{"one low", event.Counts{event.Low: 1}, 1},
		{"three low", event.Counts{event.Low: 3}, 3},
		{"one medium", event.Counts{event.Medium: 1}, 4},
		{"one high", event.Counts{event.High: 1}, 10},
		{"one critical", event.Counts{event.Critical: 1}, 18},
		{"one of each", event.Counts{event.Info: 1, event.Low: 1, event.Medium: 1, event.High: 1, event.Critical: 1}, 30},
		{"weighted 50: 1 − 1/e", event.Counts{event.Critical: 5}, 63},
		{"100 low weigh as 5 critical", event.Counts{event.Low: 100}, 63},
		{"ten critical", event.Counts{event.Critical: 10}, 86},
		{"26 critical: 99.45", event.Counts{event.Critical: 26}, 99},
		{"27 critical saturate: 99.55", event.Counts{event.Critical: 27}, 100},
		{"never past 100", event.Counts{event.Critical: 100000}, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DayRisk(tc.c); got != tc.want {
				t.Errorf("DayRisk(%v) = %d, want %d", tc.c, got, tc.want)
			}
		})
	}
}

// TestConfirmedAlertsCost: an alert resolved as a true positive this week
// costs half of an open one; other dispositions cost nothing.
func TestConfirmedAlertsCost(t *testing.T) {
	for _, tc := range []struct {
		name               string
		confirmed          event.Counts
		wantValue, wantPen int
		wantScore          int
	}{
		{"none", event.Counts{}, 0, 0, 100},
		{"a confirmed critical", event.Counts{event.Critical: 1}, 1, 12, 88},
		{"a confirmed high", event.Counts{event.High: 1}, 1, 5, 95},
		{"confirmed lows cost nothing", event.Counts{event.Low: 9}, 0, 0, 100},
		{"at the cap", event.Counts{event.Critical: 2, event.High: 2}, 4, 30, 70},
		{"past the cap", event.Counts{event.Critical: 9}, 9, 30, 70},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cleanFacts()
			f.Confirmed7d = tc.confirmed
			th := Compute(f).SubScores["threats"]
			in := input(t, th, "confirmed_alerts_7d")
			if in.Value != tc.wantValue || in.Penalty != tc.wantPen {
				t.Errorf("value %v penalty %d, want %d and %d", in.Value, in.Penalty, tc.wantValue, tc.wantPen)
			}
			if got := assessedScore(t, th); got != tc.wantScore {
				t.Errorf("threats score %d, want %d", got, tc.wantScore)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }
