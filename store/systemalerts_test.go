package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"garrison/alerting"
	"garrison/event"
)

// Each category Garrison raises alerts of is found through the partial
// index of open system alerts (the query names the index, so one it
// cannot use fails), and an alert leaves the list when it is resolved.
func TestOpenSystemAlertsByCategory(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	for _, category := range []string{event.CategorySilent, event.CategoryKeyExpired, event.CategoryNotifyFailing} {
		if !strings.Contains(openSystemAlertsQuery, "'"+category+"'") {
			t.Fatalf("the query does not name %s", category)
		}
		id, opened, err := s.RaiseAlert(ctx, "org_a", alerting.Spec{Fingerprint: "fp-" + category, Severity: event.Medium,
			Category: category, Title: "t", Asset: "ws-1"}, foldNow)
		if err != nil || !opened {
			t.Fatalf("raise %s: %v, %v", category, opened, err)
		}
		got, err := s.OpenSystemAlerts(ctx, category)
		if err != nil || len(got) != 1 || got[0].Fingerprint != "fp-"+category {
			t.Fatalf("%s: %+v, %v", category, got, err)
		}
		if _, err := s.writer.Exec(`UPDATE alerts SET status = 'resolved' WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		if got, err := s.OpenSystemAlerts(ctx, category); err != nil || len(got) != 0 {
			t.Fatalf("%s resolved: %+v, %v", category, got, err)
		}
	}
}
