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
	reporting, dns := cf.ReportingSources(), cf.DNSQueries7d()
	var lastSeen time.Time
	for _, s := range cf.Sources {
		if s.LastSeen.After(lastSeen) {
			lastSeen = s.LastSeen
		}
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
			"Invite colleagues in Settings → Members and invites, with their e-mail address and a role."),
		item("emails_confirmed", "Confirm every user's e-mail address", id.Unverified == 0,
			wording.Count(id.Unverified, "user has", "users have")+" not confirmed.", "Each user opens the link in the verification mail."),
		item("api_key", "Create an API key for integrations", id.ActiveKeys > 0, wording.Count(id.ActiveKeys, "active key.", "active keys."),
			"Create a key with the write scope for your sensors in Settings → API keys."),
		item("event_source", "Connect an event source", reporting > 0,
			fmt.Sprintf("%s in the last 24 hours (of %d ever).", wording.Count(reporting, "source reported", "sources reported"), len(cf.Sources)),
			"Point Suricata's EVE output at Garrison's Suricata webhook, or have your other tools send their events to Garrison, with that key."),
		item("dns_telemetry", "Send DNS telemetry", dns > 0, wording.Count(dns, "DNS query", "DNS queries")+" in 7 days.",
			"Turn on dns records in Suricata's EVE output, or send DNS records to Garrison's native webhook."),
		item("alert_reviewed", "Review your first alert", resolvedEver > 0, wording.Count(resolvedEver, "alert", "alerts")+" resolved so far.",
			"Open Alerts, pick one, and resolve it saying whether it was real and what was done."),
		item("agent_run", "Run an agent", otherAgents > 0, wording.Count(otherAgents, "other agent has", "other agents have")+" run.",
			"On the Agents page, run the Threat Researcher on a domain you care about."),
		item("frameworks_audited", "Audit a compliance framework", len(audited) > 0,
			fmt.Sprintf("%d of %d frameworks audited.", len(audited), len(compliance.FrameworkIDs())),
			"On the Compliance page, run an audit of SOC 2, HIPAA, NIST CSF or CIS Controls, or of all four."),
		item("cves_watched", "Watch the CVEs that matter to you", len(cf.Exposure) > 0,
			fmt.Sprintf("%s, %d of them affecting an asset of the inventory.", wording.Count(len(cf.Exposure), "CVE watched", "CVEs watched"), affecting(cf.Exposure)),
			"List your machines and their software on the Assets page, then add the CVEs you follow to the CVE watchlist."),
	}
	if !lastSeen.IsZero() {
		items[3].Detail += " Last event " + lastEventAt(lastSeen) + "."
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

// lastEventAt says when, in words a person reads at a glance (on 21 Nov
// 2026 at 14:05 UTC); the checklist is shown as it is.
func lastEventAt(t time.Time) string {
	return t.UTC().Format("on 2 Jan 2006 at 15:04 UTC")
}

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
