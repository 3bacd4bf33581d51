package agents

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
	"garrison/store/storetest"
)

// TestOnboardingChecklist: the checklist's steps, done or pending with
// their details, over a real store (the checklist reads it; it is not a
// pure function).
func TestOnboardingChecklist(t *testing.T) {
	st := storetest.Open(t)
	now := time.Now().UTC().Truncate(time.Second)
	env := &Env{Store: st, Now: func() time.Time { return now }}
	ctx := context.Background()

	pending := map[string]checklistItem{
		"team_invited": {ID: "team_invited", Title: "Invite your team", Status: "pending", Detail: "1 user.",
			NextStep: "Invite colleagues in Settings → Members and invites, with their e-mail address and a role."},
		"emails_confirmed": {ID: "emails_confirmed", Title: "Confirm every user's e-mail address", Status: "pending",
			Detail: "1 user has not confirmed.", NextStep: "Each user opens the link in the verification mail."},
		"api_key": {ID: "api_key", Title: "Create an API key for integrations", Status: "pending", Detail: "0 active keys.",
			NextStep: "Create a key with the write scope for your sensors in Settings → API keys."},
		"event_source": {ID: "event_source", Title: "Connect an event source", Status: "pending",
			Detail:   "0 sources reported in the last 24 hours (of 0 ever).",
			NextStep: "Point Suricata's EVE output at Garrison's Suricata webhook, or have your other tools send their events to Garrison, with that key."},
		"dns_telemetry": {ID: "dns_telemetry", Title: "Send DNS telemetry", Status: "pending", Detail: "0 DNS queries in 7 days.",
			NextStep: "Turn on dns records in Suricata's EVE output, or send DNS records to Garrison's native webhook."},
		"alert_reviewed": {ID: "alert_reviewed", Title: "Review your first alert", Status: "pending", Detail: "0 alerts resolved so far.",
			NextStep: "Open Alerts, pick one, and resolve it saying whether it was real and what was done."},
		"agent_run": {ID: "agent_run", Title: "Run an agent", Status: "pending", Detail: "0 other agents have run.",
			NextStep: "On the Agents page, run the Threat Researcher on a domain you care about."},
		"frameworks_audited": {ID: "frameworks_audited", Title: "Audit a compliance framework", Status: "pending",
			Detail:   "0 of 4 frameworks audited.",
			NextStep: "On the Compliance page, run an audit of SOC 2, HIPAA, NIST CSF or CIS Controls, or of all four."},
		"cves_watched": {ID: "cves_watched", Title: "Watch the CVEs that matter to you", Status: "pending",
			Detail:   "0 CVEs watched, 0 of them affecting an asset of the inventory.",
			NextStep: "List your machines and their software on the Assets page, then add the CVEs you follow to the CVE watchlist."},
	}
	order := []string{"team_invited", "emails_confirmed", "api_key", "event_source", "dns_telemetry", "alert_reviewed", "agent_run",
		"frameworks_audited", "cves_watched"}
	done := func(id, detail string) checklistItem {
		return checklistItem{ID: id, Title: pending[id].Title, Status: "done", Detail: detail}
	}
	recent, old := now.Add(-time.Hour), now.Add(-48*time.Hour)

	tests := []struct {
		name    string
		setup   func(t *testing.T, orgID, userID string)
		changed map[string]checklistItem
		percent int
		summary string
	}{
		{"a new organization", func(*testing.T, string, string) {}, nil, 0,
			"Onboarding is 0% complete: 0 of 9 steps done. Next: Invite colleagues in Settings → Members and invites, with their e-mail address and a role."},
		{"a sensor reporting, DNS and other agents run", func(t *testing.T, orgID, userID string) {
			if _, err := st.Ingest(ctx, orgID, []store.NewEvent{{Type: event.TypeBlocked, Severity: event.Low, Timestamp: recent,
				Source: "suricata", Asset: "fw-1", Message: "m"}},
				[]store.DNSQuery{{Timestamp: recent, Source: "suricata", Client: "10.0.0.2", Domain: "example.com", QType: "A", RCode: "NOERROR"}}); err != nil {
				t.Fatal(err)
			}
			for _, agent := range []string{"threat-researcher", "threat-researcher", onboardingSlug} {
				if _, err := st.QueueRun(ctx, store.NewRun{OrgID: orgID, Agent: agent, Params: json.RawMessage(`{}`), RequestedBy: userID}); err != nil {
					t.Fatal(err)
				}
			}
		}, map[string]checklistItem{
			"event_source":  done("event_source", "1 source reported in the last 24 hours (of 1 ever). Last event "+lastEventAt(recent)+"."),
			"dns_telemetry": done("dns_telemetry", "1 DNS query in 7 days."),
			"agent_run":     done("agent_run", "1 other agent has run."),
		}, 33, "Onboarding is 33% complete: 3 of 9 steps done. Next: Invite colleagues in Settings → Members and invites, with their e-mail address and a role."},
		{"a sensor silent for two days", func(t *testing.T, orgID, _ string) {
			if _, err := st.Ingest(ctx, orgID, []store.NewEvent{{Type: event.TypeThreat, Severity: event.Low, Timestamp: old,
				Source: "suricata", Asset: "fw-1", Message: "m"}}, nil); err != nil {
				t.Fatal(err)
			}
		}, map[string]checklistItem{
			"event_source": {ID: "event_source", Title: pending["event_source"].Title, Status: "pending",
				Detail:   "0 sources reported in the last 24 hours (of 1 ever). Last event " + lastEventAt(old) + ".",
				NextStep: pending["event_source"].NextStep},
		}, 0, "Onboarding is 0% complete: 0 of 9 steps done. Next: Invite colleagues in Settings → Members and invites, with their e-mail address and a role."},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := string(rune('a' + i))
			u := storetest.Account(t, st, name)
			tc.setup(t, u.OrgID, u.ID)
			rep, err := onboardingChecklist(ctx, env, store.AgentRun{OrgID: u.OrgID}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []checklistItem
			var next []string
			for _, id := range order {
				it, ok := tc.changed[id]
				if !ok {
					it = pending[id]
				}
				want = append(want, it)
				if it.Status == "pending" {
					next = append(next, it.NextStep)
				}
			}
			// The checklist is read by people on the console's run page:
			// it names pages and actions, never an API path.
			for _, it := range rep.Output["checklist"].([]checklistItem) {
				if strings.Contains(it.NextStep+it.Detail, "/api/") || strings.Contains(it.NextStep, "POST ") {
					t.Errorf("%s speaks in API paths: %q %q", it.ID, it.Detail, it.NextStep)
				}
			}
			if got := rep.Output["checklist"]; !reflect.DeepEqual(got, want) {
				t.Errorf("checklist\n got %+v\nwant %+v", got, want)
			}
			if got := rep.Output["next_steps"]; !slices.Equal(got.([]string), next) {
				t.Errorf("next steps %q, want %q", got, next)
			}
			if rep.Output["completed"] != 9-len(next) || rep.Output["applicable"] != 9 || rep.Output["percent_complete"] != tc.percent {
				t.Errorf("completed %v of %v, %v%%; want %d of 9, %d%%", rep.Output["completed"], rep.Output["applicable"],
					rep.Output["percent_complete"], 9-len(next), tc.percent)
			}
			if rep.Summary != tc.summary || rep.Task != "an onboarding checklist" || rep.Apply != nil {
				t.Errorf("summary %q (task %q)", rep.Summary, rep.Task)
			}
		})
	}
}
