package account

import (
	"slices"
	"strings"

	"garrison/fault"
)

// The plans an organization subscribes to, from the lowest tier up: a plan
// includes everything the plans below it include.
const (
	PlanStarter  = "starter"
	PlanPro      = "pro"
	PlanUltimate = "ultimate"
)

// Plans lists the plans from lowest to highest tier.
var Plans = []string{PlanStarter, PlanPro, PlanUltimate}

// ValidPlan reports whether plan names a plan.
func ValidPlan(plan string) bool { return slices.Contains(Plans, plan) }

// PlanIncludes reports whether an organization on plan has what needs
// (the lowest plan including a feature) gives.
func PlanIncludes(plan, needs string) bool {
	return slices.Index(Plans, plan) >= slices.Index(Plans, needs)
}

// PlanError refuses a feature the organization's plan does not include.
type PlanError struct {
	Feature string // "The msp-hunter agent", "Outreach"
	Needs   string // the lowest plan that includes it
	Has     string // the organization's plan
}

func (e *PlanError) Error() string {
	included := Plans[slices.Index(Plans, e.Needs):]
	return e.Feature + " is included in the " + strings.Join(included, " and ") + " plans; this organization is on " + e.Has
}

// Fault is what the client is told: plan_upgrade_required.
func (e *PlanError) Fault() *fault.Error { return fault.New(fault.PlanRequired, e.Error()) }

// RequirePlan refuses a feature below the plan that includes it.
func RequirePlan(feature, needs, has string) error {
	if !PlanIncludes(has, needs) {
		return &PlanError{Feature: feature, Needs: needs, Has: has}
	}
	return nil
}
