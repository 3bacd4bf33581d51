package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"garrison/posture"
	"garrison/store"
	"garrison/valid"
)

var complianceAgent = Agent{
	Slug: "compliance", Name: "Compliance Auditor", Plan: store.PlanStarter,
	Description: "Checks what the organization's own data shows about its controls (accounts, API keys, monitoring, " +
		"DNS filtering, alert handling) and maps each check to SOC 2, HIPAA, NIST CSF 2.0 and CIS Controls v8.",
	newParams: func() Params { return &complianceParams{} },
	analyze:   auditControls,
}

// frameworks the checks map to.
var frameworks = []string{"soc2", "hipaa", "nist", "cis"}

type complianceParams struct {
	Prompt    string `json:"prompt"`
	Framework string `json:"framework"`
}

func (p *complianceParams) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
	problems.Check(p.Framework == "" || slices.Contains(frameworks, p.Framework), "framework", "must be one of "+strings.Join(frameworks, ", "))
}

// controlCheck is one control the organization's data can evidence.
type controlCheck struct {
	ID       string              `json:"id"`
	Title    string              `json:"title"`
	Status   string              `json:"status"` // pass or fail
	Evidence string              `json:"evidence"`
	Fix      string              `json:"remediation,omitempty"`
	Controls map[string][]string `json:"controls"`
}

// controlFacts are the numbers the checks read: the score's facts, plus how
// alerts are handled.
type controlFacts struct {
	posture.Facts
	stale      int // high and critical alerts open for more than a day
	resolved30 int // alerts resolved in the last 30 days
}

func gatherControlFacts(ctx context.Context, env *Env, orgID string) (controlFacts, error) {
	var f controlFacts
	var err error
	if f.Facts, err = posture.Gather(ctx, env.Store, orgID, env.Now()); err != nil {
		return f, err
	}
	if f.stale, err = env.Store.StaleOpenAlerts(ctx, orgID, f.Now.Add(-24*time.Hour)); err != nil {
		return f, err
	}
	_, f.resolved30, err = env.Store.AlertsChangedSince(ctx, orgID, f.Now.Add(-30*24*time.Hour))
	return f, err
}

// runChecks evaluates every check; the mapping of each to the frameworks'
// identifiers is fixed (titles are our own words).
func runChecks(f controlFacts) []controlCheck {
	check := func(id, title string, pass bool, evidence, fix string, controls map[string][]string) controlCheck {
		c := controlCheck{ID: id, Title: title, Status: "pass", Evidence: evidence, Controls: controls}
		if !pass {
			c.Status, c.Fix = "fail", fix
		}
		return c
	}
	reporting, dns := f.ReportingSources(), f.DNSQueries7d()
	id := f.Identity
	return []controlCheck{
		check("least_privilege", "Administrator rights are limited",
			id.Members < 4 || id.Admins*2 <= id.Members,
			fmt.Sprintf("%d of %d users are admins.", id.Admins, id.Members),
			"Demote users who do not administer the organization to member (PATCH /api/org/members/:id).",
			map[string][]string{"soc2": {"CC6.3"}, "hipaa": {"164.308(a)(4)"}, "nist": {"PR.AA-05"}, "cis": {"5.4"}}),
		check("verified_identities", "Every user has a confirmed e-mail address",
			id.Unverified == 0, fmt.Sprintf("%d users have not confirmed their address.", id.Unverified),
			"Ask those users to confirm their address, or remove accounts nobody claims.",
			map[string][]string{"soc2": {"CC6.2"}, "hipaa": {"164.312(d)"}, "nist": {"PR.AA-01", "PR.AA-02"}, "cis": {"5.1"}}),
		check("expiring_admin_keys", "Admin API keys expire",
			id.AdminKeysNoExpiry == 0, fmt.Sprintf("%d admin-scope API keys never expire.", id.AdminKeysNoExpiry),
			"Replace each admin key with one that has an expires_at, then revoke the old one.",
			map[string][]string{"soc2": {"CC6.1"}, "hipaa": {"164.312(a)"}, "nist": {"PR.AA-01"}, "cis": {"5.5"}}),
		check("dormant_keys", "Unused API keys are revoked",
			id.KeysUnused90Days == 0, fmt.Sprintf("%d active API keys have not been used for 90 days.", id.KeysUnused90Days),
			"Revoke API keys unused for 90 days (DELETE /api/api-keys/:id).",
			map[string][]string{"soc2": {"CC6.2"}, "hipaa": {"164.308(a)(4)"}, "nist": {"PR.AA-01"}, "cis": {"5.3"}}),
		check("event_monitoring", "Security events are collected",
			reporting > 0, fmt.Sprintf("%d of %d event sources reported in the last 24 hours.", reporting, len(f.Sources)),
			"Connect a sensor: POST events to /api/events or point Suricata at /api/webhooks/suricata.",
			map[string][]string{"soc2": {"CC7.2"}, "hipaa": {"164.312(b)"}, "nist": {"DE.CM-01", "DE.CM-09"}, "cis": {"8.2"}}),
		check("dns_filtering", "DNS filtering is in place",
			dns > 0, fmt.Sprintf("%d DNS queries were seen in the last 7 days.", dns),
			"Send DNS telemetry (Suricata dns records or the native form) so blocked queries are visible.",
			map[string][]string{"soc2": {"CC7.2"}, "hipaa": {"164.308(a)(5)"}, "nist": {"DE.CM-01"}, "cis": {"9.2"}}),
		check("alert_response", "High and critical alerts are handled within a day",
			f.stale == 0, fmt.Sprintf("%d high or critical alerts have been open for more than 24 hours.", f.stale),
			"Review the open high and critical alerts and resolve each with a note (PATCH /api/alerts/:id).",
			map[string][]string{"soc2": {"CC7.3", "CC7.4"}, "hipaa": {"164.308(a)(6)"}, "nist": {"DE.AE-02", "RS.MA-02"}, "cis": {"13.1"}}),
		check("alert_review", "Alerts are reviewed",
			f.resolved30 > 0 || f.stale == 0, fmt.Sprintf("%d alerts were resolved in the last 30 days.", f.resolved30),
			"Resolve reviewed alerts with a note so the review is on record.",
			map[string][]string{"soc2": {"CC7.3"}, "hipaa": {"164.308(a)(1)"}, "nist": {"DE.AE-02"}, "cis": {"8.11"}}),
	}
}

func auditControls(ctx context.Context, env *Env, run store.AgentRun, params Params) (Report, error) {
	p := params.(*complianceParams)
	f, err := gatherControlFacts(ctx, env, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	checks := runChecks(f)
	shown := frameworks
	if p.Framework != "" {
		shown = []string{p.Framework}
		for i := range checks {
			checks[i].Controls = map[string][]string{p.Framework: checks[i].Controls[p.Framework]}
		}
	}
	passed := 0
	var failed []string
	for _, c := range checks {
		if c.Status == "pass" {
			passed++
		} else {
			failed = append(failed, c.Title)
		}
	}
	out := map[string]any{"frameworks": shown, "checks": checks, "passed": passed, "failed": len(failed),
		"scope": "Controls the organization's own Garrison data evidences. Policy, physical and HR controls need the full framework audit."}
	summary := fmt.Sprintf("%d of %d data-evidenced control checks pass.", passed, len(checks))
	if len(failed) > 0 {
		summary += " Failing: " + joinList(failed) + "."
	}
	return Report{Output: out, Summary: summary, Task: "a compliance control check"}, nil
}

// joinList writes "a, b and c".
func joinList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
