package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"garrison/alerting"
	"garrison/event"
)

// Due escalations are those of open, unacknowledged alerts; a due one
// whose alert was acknowledged or resolved is dropped, and one not yet
// due stays whatever its alert.
func TestDueEscalations(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	if _, err := s.writer.Exec(`INSERT INTO notification_rules (id, org_id, name, min_severity, created_at, updated_at)
		VALUES ('rule_1', 'org_a', 'critical', 4, 0, 0)`); err != nil {
		t.Fatal(err)
	}
	now := foldNow
	alerts := map[string]string{}
	for _, c := range []struct {
		name   string
		settle string // SQL setting the alert's state, "" for open
		due    time.Duration
	}{
		{"open", "", -time.Minute},
		{"acked", "acknowledged_at = 1", -time.Minute},
		{"resolved", "status = 'resolved'", -time.Minute},
		{"acked later", "acknowledged_at = 1", time.Minute},
	} {
		id, _, err := s.RaiseAlert(ctx, "org_a", alerting.Spec{Fingerprint: c.name, Severity: event.Critical,
			Category: event.CategoryMalware, Title: c.name, Asset: "ws-1"}, now)
		if err != nil {
			t.Fatal(err)
		}
		alerts[c.name] = id
		if c.settle != "" {
			if _, err := s.writer.Exec(`UPDATE alerts SET `+c.settle+` WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.writer.Exec(`INSERT INTO alert_escalations (alert_id, rule_id, next_at) VALUES (?, 'rule_1', ?)`,
			id, ms(now.Add(c.due))); err != nil {
			t.Fatal(err)
		}
	}
	due, err := s.DueEscalations(ctx, now, 10)
	if err != nil || len(due) != 1 || due[0].AlertID != alerts["open"] || due[0].RuleID != "rule_1" {
		t.Fatalf("due: %+v, %v", due, err)
	}
	var left []string
	rows, err := s.writer.Query(`SELECT a.title FROM alert_escalations e JOIN alerts a ON a.id = e.alert_id ORDER BY a.title`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var title string
		rows.Scan(&title)
		left = append(left, title)
	}
	rows.Close()
	if len(left) != 2 || left[0] != "acked later" || left[1] != "open" {
		t.Fatalf("escalations left: %v (the due settled ones dropped, the others kept)", left)
	}
}
