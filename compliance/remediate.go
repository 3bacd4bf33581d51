package compliance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"garrison/account"
	"garrison/store"
	"garrison/valid"
	"garrison/wording"
)

// RemediateRequest asks to remediate a gap.
type RemediateRequest struct {
	OrgID     string
	GapID     string
	AutoApply *bool // required: true applies, false plans
	Actor     string
	// MayAdminister says whether the caller may make changes only an
	// administrator may (API keys).
	MayAdminister bool
}

// Remediation is the answer: what was planned or done, and whether the
// control passes once re-checked.
type Remediation struct {
	store.Remediation
	Gap   store.Gap
	Steps []string
	// ControlResult is the control's result re-checked at once (only for
	// an applied remediation).
	ControlResult string
	Message       string
}

// Remediate plans or applies the remediation of an open gap. The control
// is evaluated afresh: steps are those of the checks failing now. With
// AutoApply, a gap whose failing checks Garrison can all fix is fixed in
// one transaction, recorded, and re-checked; any other gap needs a person
// (manual_required). Without it, the steps are recorded as planned.
func (e *Engine) Remediate(ctx context.Context, r RemediateRequest) (Remediation, error) {
	var p valid.Problems
	p.Check(r.GapID != "", "gap_id", "is required: the gap_id of a gap an audit found")
	p.Check(r.AutoApply != nil, "auto_apply", "is required: true to apply what Garrison can change, false to plan")
	if err := p.Err(); err != nil {
		return Remediation{}, err
	}
	autoApply := *r.AutoApply
	gap, err := e.store.Gap(ctx, r.OrgID, r.GapID)
	if err != nil {
		return Remediation{}, err
	}
	if gap.Status != "open" {
		return Remediation{}, conflict(fmt.Sprintf("Gap %s was closed by audit %s; run a new audit to see the control's state",
			gap.ID, gap.ClosedAuditID))
	}
	fw, ok := LookupFramework(gap.Framework)
	if !ok {
		return Remediation{}, fmt.Errorf("gap %s: unknown framework %s", gap.ID, gap.Framework)
	}
	control, ok := fw.Control(gap.ControlID)
	if !ok {
		return Remediation{}, fmt.Errorf("gap %s: unknown control %s", gap.ID, gap.ControlID)
	}
	facts, err := e.gather(ctx, r.OrgID)
	if err != nil {
		return Remediation{}, err
	}
	ev := &evaluation{facts: facts, findings: map[string]Finding{}}
	result, detail := ev.control(fw, control)
	out := Remediation{Gap: gap}
	if detail == nil {
		// Fixed since the audit, by hand or by an earlier remediation.
		var recorded GapDetail
		if err := json.Unmarshal(gap.Detail, &recorded); err != nil {
			return Remediation{}, fmt.Errorf("gap %s detail: %w", gap.ID, err)
		}
		out.Steps = recorded.RemediationSteps
		status := store.RemediationPlanned
		if autoApply {
			status = store.RemediationApplied
		}
		if out.Remediation, err = e.store.RecordRemediation(ctx, r.OrgID, gap.ID, status, r.Actor, nil); err != nil {
			return Remediation{}, err
		}
		out.ControlResult = result.Result
		out.Message = "The control no longer fails (" + resultNow(result.Result) + "); the next audit closes this gap."
		return out, e.outcome(ctx, &out, result.Result)
	}
	out.Steps = detail.RemediationSteps
	var actions []store.RemediationAction
	needsAdmin := false
	if detail.AutoRemediable {
		for _, f := range detail.Failed {
			c := checkByID(f.CheckID)
			actions = append(actions, c.fix(facts)...)
			needsAdmin = needsAdmin || c.fixNeedsAdmin
		}
	}
	switch {
	case !autoApply:
		out.Message = "Planned: the steps are recorded; nothing was changed."
		out.Remediation, err = e.store.RecordRemediation(ctx, r.OrgID, gap.ID, store.RemediationPlanned, r.Actor, nil)
		return out, err
	case !detail.AutoRemediable:
		out.Message = "Garrison cannot make this change itself; follow the steps, then run a new audit."
		out.Remediation, err = e.store.RecordRemediation(ctx, r.OrgID, gap.ID, store.RemediationManualRequired, r.Actor, nil)
		return out, err
	case needsAdmin && !r.MayAdminister:
		return Remediation{}, ErrNeedsAdmin
	}
	if out.Remediation, err = e.store.RecordRemediation(ctx, r.OrgID, gap.ID, store.RemediationApplied, r.Actor, actions); err != nil {
		return Remediation{}, err
	}
	// Re-check at once, over fresh facts.
	if facts, err = e.gather(ctx, r.OrgID); err != nil {
		return Remediation{}, err
	}
	ev = &evaluation{facts: facts, findings: map[string]Finding{}}
	after, _ := ev.control(fw, control)
	out.ControlResult = after.Result
	out.Message = appliedMessage(out.Changes, after.Result)
	return out, e.outcome(ctx, &out, after.Result)
}

// resultNow says where a control stands, in words.
func resultNow(result string) string {
	switch result {
	case Pass:
		return "it passes now"
	case NotApplicable:
		return "it is not applicable now"
	case Manual:
		return "no check evidences it now; it needs an attestation"
	}
	return "it fails"
}

// appliedMessage says what an applied remediation changed, what still
// needs a person, and where the control stands. Adopting a policy is only
// Garrison's record of it: the message says so rather than calling the
// control done.
func appliedMessage(changes []store.Change, result string) string {
	expired, revoked := 0, 0
	var policies []string
	for _, c := range changes {
		switch {
		case c.Object == "api_key" && c.Field == "expires_at":
			expired++
		case c.Object == "api_key" && c.Field == "status":
			revoked++
		case c.Object == "policy_template":
			name := c.ID
			if t, ok := LookupTemplate(c.ID); ok {
				name = t.Name
			}
			policies = append(policies, "the "+name)
		}
	}
	var did []string
	if expired > 0 {
		did = append(did, "set an expiry "+wording.Days(account.KeyMaxLifetime)+" away on "+wording.Count(expired, "API key", "API keys"))
	}
	if revoked > 0 {
		did = append(did, "revoked "+wording.Count(revoked, "API key", "API keys")+" unused for "+wording.Days(account.KeyDormantAfter))
	}
	if len(policies) > 0 {
		did = append(did, "recorded "+joinWords(policies)+" as adopted")
	}
	var b strings.Builder
	switch {
	case len(did) == 0:
		b.WriteString("Garrison found nothing left to change.")
	case len(policies) > 0 && expired+revoked == 0:
		b.WriteString("Garrison " + joinWords(did) + "; nothing else was changed.")
	default:
		b.WriteString("Garrison " + joinWords(did) + ".")
	}
	if len(policies) > 0 {
		b.WriteString(" Adopting a policy here is a record, not the policy itself: the control is evidenced when " + joinWords(policies) + " " +
			wording.Agree(len(policies), "has", "have") + " been adapted to the organization, approved by management and shared with staff, " +
			"which a person still has to do.")
	}
	switch {
	case result == Fail:
		b.WriteString(" The control still fails: follow the remaining steps, then run a new audit.")
	case result != Pass:
		b.WriteString(" The control no longer fails (" + resultNow(result) + "); the next audit closes the gap.")
	case len(policies) > 0:
		b.WriteString(" Garrison's checks count the control as passing from now on, and the next audit closes the gap.")
	default:
		b.WriteString(" The control passes its checks now; the next audit closes the gap.")
	}
	return b.String()
}

// joinWords writes "a", "a and b", "a, b and c".
func joinWords(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// outcome records whether the control passes after the remediation.
func (e *Engine) outcome(ctx context.Context, out *Remediation, result string) error {
	passes := result == Pass
	out.PassesNow = &passes
	return e.store.SetRemediationOutcome(ctx, out.OrgID, out.ID, passes)
}

func checkByID(id string) *Check {
	for _, c := range allChecks {
		if c.ID == id {
			return c
		}
	}
	panic("unknown check " + id) // findings only name checks of this binary
}
