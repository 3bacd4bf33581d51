package compliance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/account"
	"garrison/actor"
	"garrison/event"
	"garrison/intel"
	"garrison/store"
	"garrison/timestamp"
	"garrison/wording"
)

// Check is one automated check over the organization's Garrison data,
// defined once and mapped to the controls it evidences in all four
// frameworks.
type Check struct {
	ID       string
	Title    string
	Severity event.Severity      // of the gap it opens when it fails
	Controls map[string][]string // framework id → control ids
	Steps    []string            // how an MSP engineer fixes a failure, in order
	evaluate func(f *Facts) outcome
	// fix lists the changes that make the check pass; nil when only a
	// person can fix it. fixNeedsAdmin: the changes touch what only an
	// administrator may change (API keys).
	fix           func(f *Facts) []store.RemediationAction
	fixNeedsAdmin bool
}

// Finding is a check's result with its evidence.
type Finding struct {
	CheckID   string         `json:"check_id"`
	Title     string         `json:"title"`
	Result    string         `json:"result"`
	Evidence  string         `json:"evidence"`
	Observed  map[string]any `json:"observed"`
	CheckedAt string         `json:"checked_at"`
}

// outcome is what evaluate concludes.
type outcome struct {
	result   string
	evidence string
	observed map[string]any
}

func passIf(ok bool, evidence string, observed map[string]any) outcome {
	r := Pass
	if !ok {
		r = Fail
	}
	return outcome{r, evidence, observed}
}

// run evaluates the check.
func (c *Check) run(f *Facts) Finding {
	o := c.evaluate(f)
	if o.observed == nil {
		o.observed = map[string]any{}
	}
	return Finding{CheckID: c.ID, Title: c.Title, Result: o.result, Evidence: o.evidence, Observed: o.observed,
		CheckedAt: timestamp.Format(f.Now)}
}

// firstIDs lists at most ten ids, so evidence stays readable; the count
// beside it is exact.
func firstIDs(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids[:min(len(ids), 10)]
}

func keyIDs(keys []store.APIKey) []string {
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	return ids
}

func itemIDs(items []store.OverdueItem) []string {
	var ids []string
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// keysWithoutExpiry are the active keys that never expire.
func keysWithoutExpiry(f *Facts) []store.APIKey {
	var out []store.APIKey
	for _, k := range f.Keys {
		if k.ExpiresAt == nil {
			out = append(out, k)
		}
	}
	return out
}

// dormantKeys are the active keys not used for account.KeyDormantAfter (a key never
// used counts from its creation).
func dormantKeys(f *Facts) []store.APIKey {
	var out []store.APIKey
	for _, k := range f.Keys {
		last := k.CreatedAt
		if k.LastUsedAt != nil {
			last = *k.LastUsedAt
		}
		if f.Now.Sub(last) > account.KeyDormantAfter {
			out = append(out, k)
		}
	}
	return out
}

// longLivedAdminKeys are the active admin-scope keys that never expire or
// expire more than account.KeyMaxLifetime from now.
func longLivedAdminKeys(f *Facts) []store.APIKey {
	var out []store.APIKey
	for _, k := range f.Keys {
		if k.Scope == actor.ScopeAdmin && (k.ExpiresAt == nil || k.ExpiresAt.Sub(f.Now) > account.KeyMaxLifetime) {
			out = append(out, k)
		}
	}
	return out
}

// expireKeys sets each key to expire account.KeyMaxLifetime from now.
func expireKeys(f *Facts, keys []store.APIKey) []store.RemediationAction {
	var out []store.RemediationAction
	for _, k := range keys {
		out = append(out, store.RemediationAction{Kind: store.ActionSetKeyExpiry, KeyID: k.ID, ExpiresAt: f.Now.Add(account.KeyMaxLifetime)})
	}
	return out
}

func admins(f *Facts) (all, unverified []string) {
	for _, u := range f.Users {
		if u.Role != actor.RoleAdmin {
			continue
		}
		all = append(all, u.ID)
		if u.EmailVerifiedAt == nil {
			unverified = append(unverified, u.ID)
		}
	}
	return all, unverified
}

// maxAdmins is how many administrators an organization of n users may
// have: two, or a third of its users when that is more.
func maxAdmins(users int) int { return max(2, (users+2)/3) }

func durationText(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return wording.Count(int(d/(24*time.Hour)), "day", "days")
	case d%time.Hour == 0:
		return wording.Count(int(d/time.Hour), "hour", "hours")
	}
	return d.String()
}

// ageText says how long ago t was, in whole hours or days ("none" for nil).
func ageText(now time.Time, t *time.Time) string {
	if t == nil {
		return "none"
	}
	d := now.Sub(*t)
	if d < 48*time.Hour {
		return wording.Count(int(d.Hours()), "hour", "hours")
	}
	return wording.Count(int(d.Hours()/24), "day", "days")
}

// dataChecks are the checks over identity, monitoring and response data.
var dataChecks = []*Check{
	{
		ID: "password_policy", Title: "Passwords are long and stored as slow salted hashes", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC6.1"}, "hipaa": {"164.308(a)(5)(ii)(D)"}, "nist": {"PR.AA-01"}, "cis": {"5.2"}},
		Steps: []string{
			"Run Garrison with its default password rules (at least 12 characters, PBKDF2-HMAC-SHA256 with 600,000 iterations).",
			"Ask every user whose password was set under weaker rules to change it (Settings, Organization tab, Change password).",
		},
		evaluate: func(f *Facts) outcome {
			s := f.Settings
			return passIf(s.PasswordMinLength >= 12,
				fmt.Sprintf("Passwords need at least %d characters and are stored as %s.", s.PasswordMinLength, s.PasswordHash),
				map[string]any{"min_length": s.PasswordMinLength, "hash": s.PasswordHash})
		},
	},
	{
		ID: "session_lifetime", Title: "Sessions expire within a working day", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC6.1"}, "hipaa": {"164.312(a)(2)(iii)"}, "nist": {"PR.AA-03"}, "cis": {"4.3"}},
		Steps: []string{
			"Restart Garrison with --jwt-ttl 24h or shorter.",
			"Rather than raising the lifetime, give tools that need lasting access an API key with an expiry, and have people sign in again when their session ends.",
		},
		evaluate: func(f *Facts) outcome {
			ttl := f.Settings.SessionTTL
			return passIf(ttl > 0 && ttl <= 24*time.Hour,
				fmt.Sprintf("Session tokens expire %s after sign-in; sign-out and password changes end them at once.", durationText(ttl)),
				map[string]any{"session_ttl_seconds": int(ttl.Seconds())})
		},
	},
	{
		ID: "admin_count", Title: "Administrator rights are limited", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC6.3"}, "hipaa": {"164.308(a)(4)(ii)(B)"}, "nist": {"PR.AA-05"}, "cis": {"5.4", "6.8"}},
		Steps: []string{
			"On Settings, Members and invites, decide who administers the organization.",
			"Make the others members there (the role button beside each name).",
		},
		evaluate: func(f *Facts) outcome {
			all, _ := admins(f)
			limit := maxAdmins(len(f.Users))
			return passIf(len(all) <= limit,
				fmt.Sprintf("%s of %s; at most %d are expected.", wording.Count(len(all), "administrator", "administrators"),
					wording.Count(len(f.Users), "user", "users"), limit),
				map[string]any{"admins": len(all), "users": len(f.Users), "max_admins": limit, "admin_ids": firstIDs(all)})
		},
	},
	{
		ID: "admins_verified", Title: "Every administrator has a confirmed e-mail address", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC6.2"}, "hipaa": {"164.312(d)"}, "nist": {"PR.AA-02"}, "cis": {"5.1"}},
		Steps: []string{
			"Ask each administrator without a confirmed address to open the confirmation link Garrison mailed them.",
			"Demote or remove administrator accounts nobody confirms within a week.",
		},
		evaluate: func(f *Facts) outcome {
			all, unverified := admins(f)
			return passIf(len(unverified) == 0,
				fmt.Sprintf("%d of %d administrators without a confirmed e-mail address.", len(unverified), len(all)),
				map[string]any{"admins": len(all), "unverified": len(unverified), "unverified_ids": firstIDs(unverified)})
		},
	},
	{
		ID: "key_expiry", Title: "API keys expire", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC6.1"}, "hipaa": {"164.308(a)(4)(ii)(C)"}, "nist": {"PR.AA-01"}, "cis": {"6.2"}},
		Steps: []string{
			"Give every API key an expiry: on Settings, API keys, create a replacement with an expiry date, move the integration to it, then revoke the old key.",
			"Or let Garrison set a " + strconv.Itoa(int(account.KeyMaxLifetime/(24*time.Hour))) + "-day expiry on each key without one (Remediate on the gap, Compliance page).",
		},
		evaluate: func(f *Facts) outcome {
			keys := keysWithoutExpiry(f)
			return passIf(len(keys) == 0,
				fmt.Sprintf("%d of %s %s.", len(keys), wording.Count(len(f.Keys), "active API key", "active API keys"),
					wording.Agree(len(keys), "never expires", "never expire")),
				map[string]any{"active_keys": len(f.Keys), "without_expiry": len(keys), "key_ids": firstIDs(keyIDs(keys))})
		},
		fix:           func(f *Facts) []store.RemediationAction { return expireKeys(f, keysWithoutExpiry(f)) },
		fixNeedsAdmin: true,
	},
	{
		ID: "dormant_keys", Title: "API keys unused for " + wording.Days(account.KeyDormantAfter) + " are revoked", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC6.2"}, "hipaa": {"164.308(a)(3)(ii)(C)"}, "nist": {"PR.AA-01"}, "cis": {"5.3"}},
		Steps: []string{
			"On Settings, API keys, confirm nothing still uses the keys not used for " + wording.Days(account.KeyDormantAfter) + " (the Last used column).",
			"Revoke them there, or let Garrison revoke them (Remediate on the gap, Compliance page).",
		},
		evaluate: func(f *Facts) outcome {
			keys := dormantKeys(f)
			return passIf(len(keys) == 0,
				fmt.Sprintf("%d of %s %s not been used for %s.", len(keys), wording.Count(len(f.Keys), "active API key", "active API keys"),
					wording.Agree(len(keys), "has", "have"), wording.Days(account.KeyDormantAfter)),
				map[string]any{"active_keys": len(f.Keys), "dormant": len(keys), "key_ids": firstIDs(keyIDs(keys))})
		},
		fix: func(f *Facts) []store.RemediationAction {
			var out []store.RemediationAction
			for _, k := range dormantKeys(f) {
				out = append(out, store.RemediationAction{Kind: store.ActionRevokeKey, KeyID: k.ID})
			}
			return out
		},
		fixNeedsAdmin: true,
	},
	{
		ID: "admin_keys", Title: "Admin-scope API keys are short-lived", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC6.3"}, "hipaa": {"164.308(a)(4)(ii)(B)"}, "nist": {"PR.AA-05"}, "cis": {"5.4"}},
		Steps: []string{
			"Check whether each admin-scope key needs that scope; replace it with a write-scope key where it does not.",
			"Give admin-scope keys an expiry at most " + wording.Days(account.KeyMaxLifetime) + " away, or let Garrison set it (Remediate on the gap, Compliance page).",
		},
		evaluate: func(f *Facts) outcome {
			keys := longLivedAdminKeys(f)
			return passIf(len(keys) == 0,
				fmt.Sprintf("%s %s more than %s from now.", wording.Count(len(keys), "admin-scope key", "admin-scope keys"),
					wording.Agree(len(keys), "never expires or expires", "never expire or expire"), wording.Days(account.KeyMaxLifetime)),
				map[string]any{"long_lived_admin_keys": len(keys), "key_ids": firstIDs(keyIDs(keys))})
		},
		fix:           func(f *Facts) []store.RemediationAction { return expireKeys(f, longLivedAdminKeys(f)) },
		fixNeedsAdmin: true,
	},
	{
		ID: "alert_sla", Title: "Critical and high alerts are handled within their SLA", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC7.3", "CC7.4"}, "hipaa": {"164.308(a)(6)(ii)"}, "nist": {"RS.MA-02", "DE.AE-02"}, "cis": {"17.4"}},
		Steps: []string{
			"Open each critical alert open for over 24 hours and each high one open for over 72 hours on the Alerts page, and investigate the affected asset.",
			"Contain the threat, then resolve the alert on the Alerts page with a note saying what was done.",
			"If alerts keep breaching the SLA, name an on-call owner for critical alerts.",
		},
		evaluate: func(f *Facts) outcome {
			o := f.OverdueAlerts
			return passIf(o.Count == 0,
				fmt.Sprintf("%s open past the SLA (critical %s, high %s).", wording.Count(o.Count, "alert is", "alerts are"),
					durationText(criticalAlertSLA), durationText(highAlertSLA)),
				map[string]any{"overdue": o.Count, "sla_hours": map[string]int{"critical": 24, "high": 72}, "alert_ids": firstIDs(itemIDs(o.Oldest))})
		},
	},
	{
		ID: "event_sources", Title: "Security events are collected", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC7.2"}, "hipaa": {"164.312(b)", "164.308(a)(1)(ii)(D)"}, "nist": {"DE.CM-01", "DE.CM-09", "PR.PS-04"},
			"cis": {"8.2", "8.9", "13.1"}},
		Steps: []string{
			"Connect a sensor: point Suricata's EVE output at Garrison's Suricata webhook, or send events from your tools through Garrison's events API.",
			"For each silent source listed, check the sensor is running and can reach Garrison.",
		},
		evaluate: func(f *Facts) outcome {
			var reporting, silent []string
			for _, s := range f.Sources {
				if f.Now.Sub(s.LastSeen) <= sourceSilence {
					reporting = append(reporting, s.Name)
				} else {
					silent = append(silent, s.Name)
				}
			}
			return passIf(len(reporting) > 0,
				fmt.Sprintf("%s reported in the last 24 hours; %s silent.", wording.Count(len(reporting), "source", "sources"),
					wording.Count(len(silent), "known source is", "known sources are")),
				map[string]any{"reporting": len(reporting), "silent": len(silent), "reporting_sources": firstIDs(reporting), "silent_sources": firstIDs(silent)})
		},
	},
	{
		ID: "dns_filtering", Title: "DNS filtering is active", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC6.8"}, "hipaa": {"164.308(a)(5)(ii)(B)"}, "nist": {"DE.CM-01"}, "cis": {"9.2", "8.6"}},
		Steps: []string{
			"Send DNS telemetry to Garrison (Suricata dns records, or native events of type dns_anomaly).",
			"Load a blocklist (garrison blocklist import) so malicious and tracking domains are classified.",
		},
		evaluate: func(f *Facts) outcome {
			queries, blocked := 0, 0
			for cat, n := range f.DNS {
				queries += n
				if cat != "" {
					blocked += n
				}
			}
			return passIf(queries > 0 && f.Settings.BlocklistDomains > 0,
				fmt.Sprintf("%s seen in the last 7 days, %d of them blocked; the blocklist holds %s.",
					wording.Count(queries, "DNS query", "DNS queries"), blocked, wording.Count(f.Settings.BlocklistDomains, "domain", "domains")),
				map[string]any{"queries_7d": queries, "blocked_7d": blocked, "blocklist_domains": f.Settings.BlocklistDomains})
		},
	},
	{
		ID: "vulnerability_sla", Title: "Vulnerabilities affecting assets are patched within their SLA", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC7.1"}, "hipaa": {"164.308(a)(1)(ii)(B)"}, "nist": {"ID.RA-01", "PR.PS-02"}, "cis": {"7.2", "7.7"}},
		Steps: []string{
			"Patch the affected assets of each overdue CVE (the Findings page's fix-first list names the upgrade), KEV-listed first, then by CVSS score.",
			"Update each patched asset's software list on the Assets page with the new version, so the CVE no longer matches it.",
			"Where no patch exists, apply the vendor's mitigation and record it in an attestation of the control.",
		},
		evaluate: func(f *Facts) outcome {
			if !f.Settings.CVEWatchlist {
				return outcome{NotApplicable, "This release has no CVE watchlist, so no patching deadline can be checked yet.", nil}
			}
			var overdue, tracked []string
			for _, it := range f.Exposure {
				if !it.Enriched || it.Affected == 0 {
					continue
				}
				tracked = append(tracked, it.CVEID)
				if due, ok := patchDue(it); ok && f.Now.After(due) {
					overdue = append(overdue, it.CVEID)
				}
			}
			if len(tracked) == 0 {
				return outcome{NotApplicable, fmt.Sprintf("No open finding or watched CVE affects an asset of the inventory (%d watched or found).", len(f.Exposure)),
					map[string]any{"watched": len(f.Exposure)}}
			}
			return passIf(len(overdue) == 0,
				fmt.Sprintf("%d of %d CVEs affecting assets (open findings and watched CVEs) are past their patching deadline (KEV due date; critical %d days, high %d days, others %d days after being found, watched or published).",
					len(overdue), len(tracked), int(patchSLA["critical"].Hours()/24), int(patchSLA["high"].Hours()/24), int(patchSLA[""].Hours()/24)),
				map[string]any{"affecting_assets": len(tracked), "overdue": len(overdue), "cve_ids": firstIDs(overdue)})
		},
	},
	{
		ID: "incident_tickets", Title: "Incident tickets are handled within 72 hours", Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC7.4", "CC7.5"}, "hipaa": {"164.308(a)(6)(ii)"}, "nist": {"RS.MA-01", "RS.MA-04"}, "cis": {"17.3"}},
		Steps: []string{
			"On the Tickets page, assign each high-priority or escalated ticket open for over 72 hours to a named engineer.",
			"Work it to resolution and record what was done in a reply on the ticket.",
		},
		evaluate: func(f *Facts) outcome {
			o := f.OverdueTickets
			return passIf(o.Count == 0,
				fmt.Sprintf("%s (high priority or escalated) unresolved after %s.", wording.Count(o.Count, "incident ticket is", "incident tickets are"),
					durationText(incidentSLA)),
				map[string]any{"overdue": o.Count, "ticket_ids": firstIDs(itemIDs(o.Oldest))})
		},
	},
	{
		ID: "alert_review", Title: "Alerts are reviewed and closed on record", Severity: event.Low,
		Controls: map[string][]string{"soc2": {"CC7.3"}, "hipaa": {"164.308(a)(1)(ii)(D)"}, "nist": {"DE.AE-02"}, "cis": {"8.11"}},
		Steps: []string{
			"Review the open alerts at least weekly.",
			"Resolve each reviewed alert on the Alerts page with a note, so the review is on record.",
		},
		evaluate: func(f *Facts) outcome {
			// Unreviewed: an alert open for a week while nothing was
			// resolved in a month.
			open := f.OpenAlerts.Total()
			waiting := f.OldestOpen != nil && f.Now.Sub(*f.OldestOpen) > reviewDue
			observed := map[string]any{"resolved_30d": f.ResolvedAlerts, "open": open, "oldest_open_at": nil}
			if f.OldestOpen != nil {
				observed["oldest_open_at"] = timestamp.Format(*f.OldestOpen)
			}
			return passIf(!waiting || f.ResolvedAlerts > 0,
				fmt.Sprintf("%s resolved in the last 30 days; %d open, the oldest for %s.", wording.Count(f.ResolvedAlerts, "alert", "alerts"),
					open, ageText(f.Now, f.OldestOpen)),
				observed)
		},
	},
	{
		ID: "transport_encryption", Title: "Access to Garrison is encrypted in transit", Severity: event.High,
		Controls: map[string][]string{"soc2": {"CC6.7"}, "hipaa": {"164.312(e)(1)", "164.312(e)(2)(ii)"}, "nist": {"PR.DS-02"}, "cis": {"3.10"}},
		Steps:    []string{"Serve Garrison over HTTPS only (its default): plain HTTP must only redirect."},
		evaluate: func(f *Facts) outcome {
			s := f.Settings
			return passIf(s.HTTPSOnly,
				fmt.Sprintf("The API and console are served over TLS %s or newer; plain HTTP only redirects to HTTPS.", s.TLSMinVersion),
				map[string]any{"https_only": s.HTTPSOnly, "tls_min_version": s.TLSMinVersion})
		},
	},
	{
		ID: "log_retention", Title: "Security events are kept at least " + wording.Days(minLogRetention), Severity: event.Medium,
		Controls: map[string][]string{"soc2": {"CC7.2"}, "hipaa": {"164.312(b)"}, "nist": {"PR.PS-04"}, "cis": {"8.10"}},
		Steps:    []string{"Set the event retention to " + wording.Days(minLogRetention) + " or more (or keep events without a limit)."},
		evaluate: func(f *Facts) outcome {
			r := f.Settings.EventRetention
			text := "Events are kept without a time limit."
			if r > 0 {
				text = fmt.Sprintf("Events are kept for %s.", durationText(r))
			}
			return passIf(r == 0 || r >= minLogRetention, text, map[string]any{"retention_days": int(r / (24 * time.Hour))})
		},
	},
}

// policyCheck is the check that a policy template is adopted; it evidences
// the controls the template helps satisfy.
func policyCheck(t *Template) *Check {
	return &Check{
		ID: "policy_" + strings.ReplaceAll(t.ID, "-", "_"), Title: "The " + t.Name + " is adopted", Severity: event.Medium,
		Controls: t.Controls,
		Steps: []string{
			"Download the " + t.Name + " from Policy templates on the Compliance page and adapt it to the organization.",
			"Have management approve the " + t.Name + " and share it with staff.",
			"Record the " + t.Name + "'s adoption there (Adopt).",
		},
		evaluate: func(f *Facts) outcome {
			a, ok := f.Adopted[t.ID]
			if !ok {
				return outcome{Fail, "The " + t.Name + " has not been adopted.", map[string]any{"template_id": t.ID, "adopted": false}}
			}
			return outcome{Pass, fmt.Sprintf("The %s was adopted on %s by %s.", t.Name, a.AdoptedAt.Format("2 January 2006"),
				newPeople(f.Users, f.Keys).Name(a.AdoptedBy)),
				map[string]any{"template_id": t.ID, "adopted": true, "adopted_at": timestamp.Format(a.AdoptedAt), "adopted_by": a.AdoptedBy}}
		},
		fix: func(f *Facts) []store.RemediationAction {
			if _, ok := f.Adopted[t.ID]; ok {
				return nil
			}
			return []store.RemediationAction{{Kind: store.ActionAdoptPolicy, TemplateID: t.ID}}
		},
	}
}

// allChecks are the data checks and a policy check per template.
var allChecks = func() []*Check {
	out := slices.Clone(dataChecks)
	for _, t := range templates {
		out = append(out, policyCheck(t))
	}
	return out
}()

// checksByControl indexes the checks by framework and control.
var checksByControl = func() map[string][]*Check {
	out := map[string][]*Check{}
	for _, c := range allChecks {
		for fw, ids := range c.Controls {
			framework, ok := LookupFramework(fw)
			if !ok {
				panic("check " + c.ID + " maps to unknown framework " + fw)
			}
			for _, id := range ids {
				if _, ok := framework.Control(id); !ok {
					panic("check " + c.ID + " maps to unknown control " + fw + " " + id)
				}
				out[store.GapKey(fw, id)] = append(out[store.GapKey(fw, id)], c)
			}
		}
	}
	return out
}()

// Checks lists every automated check.
func Checks() []*Check { return slices.Clone(allChecks) }

// patchSLA is how long after a CVE is known (watched or published, the
// later) its affected assets may stay unpatched, by severity.
var patchSLA = map[string]time.Duration{"critical": 15 * 24 * time.Hour, "high": 30 * 24 * time.Hour, "": 90 * 24 * time.Hour}

// patchDue is a watched CVE's patching deadline: CISA's due date for a
// KEV-listed one, else the severity's SLA from when it was known.
func patchDue(it intel.ExposureItem) (time.Time, bool) {
	known := it.WatchedAt
	if it.Published != nil && it.Published.After(known) {
		known = *it.Published
	}
	sla, ok := patchSLA[it.Severity]
	if !ok {
		sla = patchSLA[""]
	}
	due := known.Add(sla)
	if it.KEVDue != nil && it.KEVDue.Before(due) {
		due = *it.KEVDue
	}
	return due, true
}
