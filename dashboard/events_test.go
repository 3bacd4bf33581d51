package dashboard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
	"garrison/store/storetest"
	"garrison/valid"
)

// newOrg registers an organization in st and returns its id.
func newOrg(t *testing.T, st *store.Store, name string) string {
	t.Helper()
	return storetest.Account(t, st, name).OrgID
}

func ingest(t *testing.T, st *store.Store, orgID string, events ...store.NewEvent) []string {
	t.Helper()
	ids, err := st.Ingest(context.Background(), orgID, events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func newBoard(st *store.Store, now time.Time) *Board {
	return New(Config{Store: st, Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func problemsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ve *valid.Error
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a validation error", err)
	}
	out := map[string]string{}
	for _, p := range ve.Problems {
		out[p.Field] = p.Message
	}
	return out
}

// TestEventQueryRefused: a bad filter is refused before the store is read
// (the board has none).
func TestEventQueryRefused(t *testing.T) {
	const (
		sevMsg  = "must be a comma list of info, low, medium, high, critical"
		typeMsg = "must be a comma list of threat_detected, blocked_connection, dns_anomaly, policy_violation, activity"
		timeMsg = "must be an RFC 3339 timestamp"
	)
	tests := []struct {
		name string
		q    EventQuery
		want map[string]string
	}{
		{"unknown severity", EventQuery{Severity: "urgent"}, map[string]string{"severity": sevMsg}},
		{"severity in capitals", EventQuery{Severity: "HIGH"}, map[string]string{"severity": sevMsg}},
		{"empty name in the severity list", EventQuery{Severity: "high,,low"}, map[string]string{"severity": sevMsg}},
		{"trailing comma in the severity list", EventQuery{Severity: "high,"}, map[string]string{"severity": sevMsg}},
		{"unknown type", EventQuery{Type: "malware"}, map[string]string{"type": typeMsg}},
		{"one unknown type among good ones", EventQuery{Type: "threat_detected, bogus"}, map[string]string{"type": typeMsg}},
		{"empty name in the type list", EventQuery{Type: "dns_anomaly,"}, map[string]string{"type": typeMsg}},
		{"from not a time", EventQuery{From: "yesterday"}, map[string]string{"from": timeMsg}},
		{"to without a zone", EventQuery{To: "2026-03-10T12:00:00"}, map[string]string{"to": timeMsg}},
		{"from after to", EventQuery{From: "2026-03-10T12:00:02Z", To: "2026-03-10T12:00:01Z"},
			map[string]string{"from": "must not be after to"}},
		{"unknown sort", EventQuery{Sort: "asset"}, map[string]string{"sort": "must be timestamp or severity"}},
		{"sort in capitals", EventQuery{Sort: "Severity"}, map[string]string{"sort": "must be timestamp or severity"}},
		{"unknown order", EventQuery{Order: "up"}, map[string]string{"order": "must be asc or desc"}},
		{"everything wrong", EventQuery{Severity: "x", Type: "y", From: "z", To: "w", Sort: "s", Order: "o"},
			map[string]string{"severity": sevMsg, "type": typeMsg, "from": timeMsg, "to": timeMsg,
				"sort": "must be timestamp or severity", "order": "must be asc or desc"}},
	}
	b := newBoard(nil, time.Now())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			events, total, err := b.Events(context.Background(), "org_1", tc.q)
			if got := problemsOf(t, err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
			if events != nil || total != 0 {
				t.Errorf("a refused query answered %d events of %d", len(events), total)
			}
		})
	}
}

// TestEventQueryFilters: each accepted filter, through a real store.
func TestEventQueryFilters(t *testing.T) {
	st := storetest.Open(t)
	org := newOrg(t, st, "acme")
	other := newOrg(t, st, "other")
	t0 := time.Now().UTC().Truncate(time.Hour).Add(-48 * time.Hour)
	ev := func(typ string, sev event.Severity, after time.Duration) store.NewEvent {
		return store.NewEvent{Type: typ, Severity: sev, Timestamp: t0.Add(after), Source: "ids", Asset: "web-1", Message: typ}
	}
	ids := ingest(t, st, org,
		ev(event.TypeThreat, event.High, 0),                 // e1
		ev(event.TypeBlocked, event.Low, time.Minute),       // e2
		ev(event.TypeDNS, event.Medium, 2*time.Minute),      // e3
		ev(event.TypePolicy, event.Critical, 3*time.Minute), // e4
		ev(event.TypeBlocked, event.Info, 4*time.Minute),    // e5
	)
	ingest(t, st, other, ev(event.TypeThreat, event.Critical, time.Minute))
	e := func(n ...int) []string {
		var out []string
		for _, i := range n {
			out = append(out, ids[i-1])
		}
		return out
	}
	stamp := func(after time.Duration) string { return t0.Add(after).Format(time.RFC3339) }
	page := store.Page{Limit: 50}
	tests := []struct {
		name      string
		q         EventQuery
		want      []string
		wantTotal int
	}{
		{"no filter: newest first", EventQuery{Page: page}, e(5, 4, 3, 2, 1), 5},
		{"explicit defaults", EventQuery{Sort: "timestamp", Order: "desc", Page: page}, e(5, 4, 3, 2, 1), 5},
		{"oldest first", EventQuery{Order: "asc", Page: page}, e(1, 2, 3, 4, 5), 5},
		{"by severity", EventQuery{Sort: "severity", Page: page}, e(4, 1, 3, 2, 5), 5},
		{"by severity, lowest first", EventQuery{Sort: "severity", Order: "asc", Page: page}, e(5, 2, 3, 1, 4), 5},
		{"high and critical", EventQuery{Severity: "high,critical", Page: page}, e(4, 1), 2},
		{"a severity twice counts once", EventQuery{Severity: "low, low", Page: page}, e(2), 1},
		{"info", EventQuery{Severity: "info", Page: page}, e(5), 1},
		{"one type", EventQuery{Type: "blocked_connection", Page: page}, e(5, 2), 2},
		{"types with spaces and repeats", EventQuery{Type: " blocked_connection,blocked_connection, dns_anomaly", Page: page}, e(5, 3, 2), 3},
		{"type and severity", EventQuery{Type: "blocked_connection", Severity: "info", Page: page}, e(5), 1},
		{"from is inclusive", EventQuery{From: stamp(2 * time.Minute), Page: page}, e(5, 4, 3), 3},
		{"to covers its whole second", EventQuery{To: stamp(time.Minute), Page: page}, e(2, 1), 2},
		{"from and to the same second", EventQuery{From: stamp(3 * time.Minute), To: stamp(3 * time.Minute), Page: page}, e(4), 1},
		{"a range and a type", EventQuery{From: stamp(time.Minute), To: stamp(3 * time.Minute), Type: "blocked_connection", Page: page}, e(2), 1},
		{"a page of two", EventQuery{Page: store.Page{Limit: 2}}, e(5, 4), 5},
		{"the second page", EventQuery{Page: store.Page{Limit: 2, Offset: 2}}, e(3, 2), 5},
		{"nothing matches", EventQuery{Severity: "critical", Type: "threat_detected", Page: page}, nil, 0},
	}
	b := newBoard(st, time.Now())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			events, total, err := b.Events(context.Background(), org, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range events {
				got = append(got, e.ID)
				if e.OrgID != "" && e.OrgID != org {
					t.Errorf("event %s of organization %s", e.ID, e.OrgID)
				}
			}
			if !slices.Equal(got, tc.want) || total != tc.wantTotal {
				t.Errorf("events %v of %d, want %v of %d", got, total, tc.want, tc.wantTotal)
			}
		})
	}
}
