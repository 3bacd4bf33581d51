package compliance

import (
	"context"
	"encoding/json"
	"fmt"

	"garrison/store"
	"garrison/valid"
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
		out.Message = "The control no longer fails (" + result.Result + "); the next audit closes this gap."
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
	out.Message = "Applied; the control now " + map[bool]string{true: "passes", false: "still fails"}[after.Result == Pass] +
		". The next audit closes the gap once the control no longer fails."
	return out, e.outcome(ctx, &out, after.Result)
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
