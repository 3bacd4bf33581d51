package agents

import (
	"context"
	"fmt"
	"time"

	"garrison/account"
	"garrison/compliance"
	"garrison/intel"
	"garrison/posture"
	"garrison/store"
	"garrison/timestamp"
	"garrison/wording"
)

var onboardingAgent = Agent{
	Slug: onboardingSlug, Name: "Onboarding", Plan: account.PlanStarter,
	Description: "Checks what the organization has set up (members, API key, event sources, DNS telemetry, alert review, " +
		"agents, frameworks, CVE watchlist) and gives the next steps for what is missing.",
	newParams: func() Params { return &promptOnly{} },
	analyze:   onboardingChecklist,
}

type checklistItem struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Status   string `json:"status"` // done or pending
	Detail   string `json:"detail"`
	NextStep string `json:"next_step,omitempty"`
}

func onboardingChecklist(ctx context.Context, env *Env, run store.AgentRun, _ Params) (Report, error) {
	cf, err := posture.Gather(ctx, env.Store, run.OrgID, env.Now())
	if err != nil {
		return Report{}, err
	}
	audited, err := env.Store.LatestAudits(ctx, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	_, resolvedEver, err := env.Store.AlertsChangedSince(ctx, run.OrgID, time.Unix(0, 0))
	if err != nil {
		return Report{}, err
	}
	otherAgents, err := env.Store.AgentsRun(ctx, run.OrgID, onboardingSlug)
	if err != nil {
		return Report{}, err
	}
	reporting, dns, lastSeen := cf.ReportingSources(), cf.DNSQueries7d(), ""
	for _, s := range cf.Sources {
		lastSeen = max(lastSeen, timestamp.Format(s.LastSeen))
	}
	id := cf.Identity
	item := func(id, title string, done bool, detail, next string) checklistItem {
		if done {
			return checklistItem{ID: id, Title: title, Status: "done", Detail: detail}
		}
		return checklistItem{ID: id, Title: title, Status: "pending", Detail: detail, NextStep: next}
	}
	items := []checklistItem{
		item("team_invited", "Invite your team", id.Members > 1, wording.Count(id.Members, "user.", "users."),
			"Invite colleagues with POST /api/org/invites (email, role)."),
		item("emails_confirmed", "Confirm every user's e-mail address", id.Unverified == 0,
			wording.Count(id.Unverified, "user has", "users have")+" not confirmed.", "Each user opens the link in the verification mail."),
		item("api_key", "Create an API key for integrations", id.ActiveKeys > 0, wording.Count(id.ActiveKeys, "active key.", "active keys."),
			"Create a write-scope key with POST /api/api-keys for your sensors."),
		item("event_source", "Connect an event source", reporting > 0,
			fmt.Sprintf("%s in the last 24 hours (of %d ever).", wording.Count(reporting, "source reported", "sources reported"), len(cf.Sources)),
			"Point Suricata's EVE output at POST /api/webhooks/suricata, or send events to POST /api/events."),
		item("dns_telemetry", "Send DNS telemetry", dns > 0, wording.Count(dns, "DNS query", "DNS queries")+" in 7 days.",
			"Enable Suricata dns records in the EVE output, or send native DNS records to the webhook."),
		item("alert_reviewed", "Review your first alert", resolvedEver > 0, wording.Count(resolvedEver, "alert", "alerts")+" resolved so far.",
			"Open GET /api/alerts and resolve one with a note (PATCH /api/alerts/:id)."),
		item("agent_run", "Run an agent", otherAgents > 0, wording.Count(otherAgents, "other agent has", "other agents have")+" run.",
			"Try POST /api/agents/threat-researcher/execute with a domain you care about as target."),
		item("frameworks_audited", "Audit a compliance framework", len(audited) > 0,
			fmt.Sprintf("%d of %d frameworks audited.", len(audited), len(compliance.FrameworkIDs())),
			"Run an audit with POST /api/compliance/audit (optionally with framework soc2, hipaa, nist or cis)."),
		item("cves_watched", "Watch the CVEs that matter to you", len(cf.Exposure) > 0,
			fmt.Sprintf("%s, %d of them affecting an asset of the inventory.", wording.Count(len(cf.Exposure), "CVE watched", "CVEs watched"), affecting(cf.Exposure)),
			"Describe your assets and their software with POST /api/assets, then watch CVEs with POST /api/cve-watchlist."),
	}
	if lastSeen != "" {
		items[3].Detail += " Last event at " + lastSeen + "."
	}
	done := 0
	var next []string
	for _, it := range items {
		if it.Status == "done" {
			done++
		} else {
			next = append(next, it.NextStep)
		}
	}
	available := len(items)
	percent := 100 * done / available
	out := map[string]any{"checklist": items, "completed": done, "applicable": available, "percent_complete": percent,
		"next_steps": nonNil(next)}
	summary := fmt.Sprintf("Onboarding is %d%% complete: %d of %d steps done.", percent, done, available)
	if len(next) > 0 {
		summary += " Next: " + next[0]
	}
	return Report{Output: out, Summary: summary, Task: "an onboarding checklist"}, nil
}

const onboardingSlug = "onboarding"

// affecting counts the watched CVEs that match an asset of the inventory.
func affecting(watched []intel.ExposureItem) int {
	n := 0
	for _, w := range watched {
		if w.Affected > 0 {
			n++
		}
	}
	return n
}
