package fleet

import (
	"slices"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
)

func TestOrderWorstFirst(t *testing.T) {
	at := func(h int) *time.Time { v := time.Date(2026, 11, 28, h, 0, 0, 0, time.UTC); return &v }
	rows := []Row{
		{Client: store.Org{ID: "a", Name: "alpha"}, Score: 90, LastEvent: at(10)},
		{Client: store.Org{ID: "b", Name: "Bravo"}, Score: 40, LastEvent: at(12), OpenAlerts: event.Counts{event.Critical: 1}},
		{Client: store.Org{ID: "c", Name: "charlie"}, Score: 40, OpenAlerts: event.Counts{event.Critical: 3}},
		{Client: store.Org{ID: "d", Name: "delta"}, Score: 75, LastEvent: at(8), OpenAlerts: event.Counts{event.Critical: 1, event.High: 4}},
	}
	for _, tc := range []struct {
		sort string
		want []string
	}{
		{"score", []string{"b", "c", "d", "a"}},         // lowest score first, ties by name
		{"open_critical", []string{"c", "d", "b", "a"}}, // most critical, then most open
		{"last_event", []string{"c", "d", "a", "b"}},    // never heard from, then the longest silent
		{"name", []string{"a", "b", "c", "d"}},          // A to Z, any case
	} {
		got := slices.Clone(rows)
		slices.SortStableFunc(got, order(tc.sort))
		var ids []string
		for _, r := range got {
			ids = append(ids, r.Client.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("sort %s: %v, want %v", tc.sort, ids, tc.want)
		}
	}
}

func TestCompareLast(t *testing.T) {
	early, late := time.Unix(1, 0), time.Unix(2, 0)
	for _, tc := range []struct {
		a, b *time.Time
		want int
	}{
		{nil, nil, 0}, {nil, &early, -1}, {&early, nil, 1}, {&early, &late, -1}, {&late, &early, 1}, {&early, &early, 0},
	} {
		if got := compareLast(tc.a, tc.b); got != tc.want {
			t.Errorf("compareLast(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
