package agents

import (
	"context"
	"fmt"
	"strings"

	"garrison/mail"
	"garrison/store"
)

// IntelNotifier is the agent whose run tells an organization what an
// intelligence import changed in the CVEs it watches.
const IntelNotifier = "threat-researcher"

// fieldNames are how notices name the fields an import changed.
var fieldNames = map[string]string{
	"record":             "Intelligence arrived",
	"cvss_score":         "CVSS score",
	"severity":           "Severity",
	"kev":                "CISA KEV",
	"exploit_references": "Exploit references",
	"patch_status":       "Patch status",
}

func changeText(c store.IntelChange) string {
	name := fieldNames[c.Field]
	if name == "" {
		name = c.Field
	}
	switch {
	case c.Before == nil && c.After != nil:
		return name + ": " + *c.After
	case c.Before != nil && c.After == nil:
		return name + ": " + *c.Before + " → none"
	case c.Before != nil:
		return name + ": " + *c.Before + " → " + *c.After
	}
	return name
}

// intelUpdate is the threat researcher's run for an intelligence import:
// it reads what the import changed in the CVEs the organization watches
// and, once the run is done, notifies everyone in the organization (one
// notice per CVE) and mails each admin one digest. A repeated run (after
// a crash) notifies nobody twice.
func intelUpdate(ctx context.Context, env *Env, run store.AgentRun, importID string) (Report, error) {
	changes, err := env.Store.ImportChanges(ctx, run.OrgID, importID)
	if err != nil {
		return Report{}, err
	}
	entries, err := env.Store.WatchEntries(ctx, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	entryOf := map[string]string{}
	for _, e := range entries {
		entryOf[e.CVEID] = e.ID
	}
	var items []mail.DigestItem
	var cves []map[string]any
	for _, c := range changes {
		if len(items) == 0 || items[len(items)-1].CVEID != c.CVEID {
			items = append(items, mail.DigestItem{CVEID: c.CVEID, EntryID: entryOf[c.CVEID]})
			cves = append(cves, map[string]any{"cve_id": c.CVEID, "watch_id": entryOf[c.CVEID], "changes": []map[string]any{}})
		}
		last := &items[len(items)-1]
		last.Changes = append(last.Changes, changeText(c))
		cur := cves[len(cves)-1]
		cur["changes"] = append(cur["changes"].([]map[string]any), map[string]any{"field": c.Field, "from": c.Before, "to": c.After})
	}
	out := map[string]any{"intel_import": importID, "cves": nonNil(cves)}
	summary := fmt.Sprintf("Intelligence import %s changed no CVE this organization watches.", importID)
	if len(items) > 0 {
		var parts []string
		for _, it := range items {
			parts = append(parts, it.CVEID+" ("+strings.Join(it.Changes, "; ")+")")
		}
		summary = fmt.Sprintf("Intelligence import %s changed %d watched CVE(s): %s.", importID, len(items), strings.Join(parts, ", "))
	}
	rep := Report{Output: out, Summary: summary, Task: "Tell the organization what new intelligence changed in the CVEs it watches."}
	if len(items) == 0 {
		return rep, nil
	}
	rep.Apply = func(ctx context.Context) error {
		org, err := env.Store.Org(ctx, run.OrgID)
		if err != nil {
			return err
		}
		admins, err := env.Store.AdminAddresses(ctx, run.OrgID)
		if err != nil {
			return err
		}
		var notices []store.Notification
		for _, it := range items {
			notices = append(notices, store.Notification{Audience: store.AudienceOrg, Kind: "cve_update",
				Title: it.CVEID + ": " + it.Changes[0], Body: strings.Join(it.Changes, "\n"), Ref: it.EntryID})
		}
		var mails []store.Mail
		if env.Mailer != nil {
			for _, to := range admins {
				mails = append(mails, env.Mailer.IntelDigest(to, org.Name, importID, items))
			}
		}
		_, err = env.Store.DeliverNotices(ctx, run.OrgID, importID, notices, mails)
		return err
	}
	return rep, nil
}
