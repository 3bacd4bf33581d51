package store_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"garrison/account"
	"garrison/actor"
	"garrison/alerting"
	"garrison/outreach"
	"garrison/store"
	"garrison/store/storetest"
	"garrison/ticket"
)

// TestVocabularyMatchesSchema: each vocabulary is defined once in Go, by
// the package that owns its rules, and the schema's CHECK constraints must
// accept exactly it: a status added to one and not the other would be
// refused by the database or never written.
func TestVocabularyMatchesSchema(t *testing.T) {
	st := storetest.Open(t)
	tableSQL := func(table string) string {
		var sql string
		if err := st.DB().QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&sql); err != nil {
			t.Fatalf("table %s: %v", table, err)
		}
		return sql
	}
	for _, tc := range []struct {
		table, column string
		code          []string
	}{
		{"orgs", "plan", account.Plans},
		{"memberships", "role", actor.Roles},
		{"memberships", "origin", store.Origins},
		{"orgs", "kind", []string{store.OrgStandalone, store.OrgProvider, store.OrgClient}},
		{"invites", "role", actor.Roles},
		{"api_keys", "scope", actor.Scopes},
		{"tickets", "status", ticket.Statuses},
		{"tickets", "priority", ticket.Priorities},
		{"ticket_messages", "author_kind", []string{ticket.AuthorUser, ticket.AuthorAPIKey, ticket.AuthorAgent}},
		{"alerts", "status", alerting.Statuses},
		{"leads", "status", outreach.Statuses},
		{"users", "origin", store.Origins},
		{"agent_runs", "status", []string{store.RunQueued, store.RunRunning, store.RunCompleted, store.RunFailed, store.RunCancelled}},
	} {
		t.Run(tc.table+"."+tc.column, func(t *testing.T) {
			m := regexp.MustCompile(`\b` + tc.column + `\s+TEXT NOT NULL[^,]*?CHECK \(` + tc.column + ` IN \(([^)]*)\)\)`).
				FindStringSubmatch(tableSQL(tc.table))
			if m == nil {
				t.Fatalf("no CHECK (%s IN (...)) in %s", tc.column, tc.table)
			}
			var schema []string
			for _, v := range strings.Split(m[1], ",") {
				schema = append(schema, strings.Trim(strings.TrimSpace(v), "'"))
			}
			if !slices.Equal(slices.Sorted(slices.Values(schema)), slices.Sorted(slices.Values(tc.code))) {
				t.Fatalf("schema accepts %v, the code names %v", schema, tc.code)
			}
		})
	}
}
