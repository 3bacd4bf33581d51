package dashboard

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
)

func TestNewCounts(t *testing.T) {
	tests := []struct {
		name string
		in   store.EventCounts
		want Counts
	}{
		{"nothing: every name present", store.EventCounts{},
			Counts{BySeverity: map[string]int{"info": 0, "low": 0, "medium": 0, "high": 0, "critical": 0},
				ByType: map[string]int{"threat_detected": 0, "blocked_connection": 0, "dns_anomaly": 0, "policy_violation": 0, "activity": 0}}},
		{"counts carried over", store.EventCounts{Total: 9, BySeverity: event.Counts{event.Info: 1, event.Low: 2, event.High: 6},
			ByType: map[string]int{event.TypeThreat: 6, event.TypeBlocked: 2, event.TypeDNS: 1}},
			Counts{Total: 9, BySeverity: map[string]int{"info": 1, "low": 2, "medium": 0, "high": 6, "critical": 0},
				ByType: map[string]int{"threat_detected": 6, "blocked_connection": 2, "dns_anomaly": 1, "policy_violation": 0, "activity": 0}}},
		{"an unknown type is left out", store.EventCounts{Total: 3, BySeverity: event.Counts{event.Critical: 3},
			ByType: map[string]int{"legacy_type": 2, event.TypePolicy: 1}},
			Counts{Total: 3, BySeverity: map[string]int{"info": 0, "low": 0, "medium": 0, "high": 0, "critical": 3},
				ByType: map[string]int{"threat_detected": 0, "blocked_connection": 0, "dns_anomaly": 0, "policy_violation": 1, "activity": 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := newCounts(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDNSStats(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]int
		want DNSStats
	}{
		{"no telemetry: both categories present", nil,
			DNSStats{BlockedByCategory: map[string]int{"tracker": 0, "malware": 0}}},
		{"allowed only", map[string]int{"": 12},
			DNSStats{Queries: 12, BlockedByCategory: map[string]int{"tracker": 0, "malware": 0}}},
		{"blocked by category", map[string]int{"": 10, "malware": 2, "tracker": 3},
			DNSStats{Queries: 15, Blocked: 5, BlockedByCategory: map[string]int{"tracker": 3, "malware": 2}, BlockedTrackers: 3}},
		{"an imported category", map[string]int{"": 1, "gambling": 4},
			DNSStats{Queries: 5, Blocked: 4, BlockedByCategory: map[string]int{"tracker": 0, "malware": 0, "gambling": 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dnsStats(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestTallies(t *testing.T) {
	tests := []struct {
		name string
		in   []store.Tally
		want []Tally
	}{
		{"none is an empty list", nil, []Tally{}},
		{"order kept", []store.Tally{{Name: "web-1", Count: 9}, {Name: "db-1", Count: 3}}, []Tally{{"web-1", 9}, {"db-1", 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tallies(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestStartOfDay(t *testing.T) {
	plus5 := time.FixedZone("UTC+5", 5*3600)
	tests := []struct {
		name string
		in   time.Time
		want time.Time
	}{
		{"midnight stays", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{"last nanosecond of the day", time.Date(2026, 3, 10, 23, 59, 59, 999999999, time.UTC), time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{"another zone's morning is the UTC day before", time.Date(2026, 3, 10, 1, 30, 0, 0, plus5), time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := startOfDay(tc.in)
			if !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("startOfDay(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestPhrasings(t *testing.T) {
	k1, k2 := [32]byte{1}, [32]byte{2}
	tests := []struct {
		name     string
		puts     []phrasing // all for org "a"
		getKey   [32]byte
		wantText string
		wantOK   bool
	}{
		{"empty", nil, k1, "", false},
		{"same facts", []phrasing{{k1, "phrased"}}, k1, "phrased", true},
		{"other facts miss", []phrasing{{k1, "phrased"}}, k2, "phrased", false},
		{"the latest phrasing replaces", []phrasing{{k1, "first"}, {k2, "second"}}, k2, "second", true},
		{"the replaced one misses", []phrasing{{k1, "first"}, {k2, "second"}}, k1, "second", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n phrasings
			for _, p := range tc.puts {
				n.put("a", p.factsKey, p.text)
			}
			text, ok := n.get("a", tc.getKey)
			if text != tc.wantText || ok != tc.wantOK {
				t.Errorf("get = %q %v, want %q %v", text, ok, tc.wantText, tc.wantOK)
			}
			if _, ok := n.get("b", tc.getKey); ok {
				t.Error("another organization hit")
			}
		})
	}
}

// TestPhrasingsBound: the cache holds maxCachedPhrasings organizations;
// the next one starts it over.
func TestPhrasingsBound(t *testing.T) {
	tests := []struct {
		name      string
		orgs      int
		firstKept bool
	}{
		{"just below the bound", maxCachedPhrasings - 1, true},
		{"at the bound", maxCachedPhrasings, true},
		{"one past the bound", maxCachedPhrasings + 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n phrasings
			for i := range tc.orgs {
				n.put(fmt.Sprint("org_", i), [32]byte{}, "text")
			}
			if _, ok := n.get("org_0", [32]byte{}); ok != tc.firstKept {
				t.Errorf("first organization kept: %v, want %v", ok, tc.firstKept)
			}
			last := fmt.Sprint("org_", tc.orgs-1)
			if _, ok := n.get(last, [32]byte{}); !ok {
				t.Errorf("%s not kept", last)
			}
		})
	}
}
