package agents

import (
	"reflect"
	"strings"
	"testing"

	"garrison/triage"
	"garrison/valid"
)

func TestFirstReply(t *testing.T) {
	res := triage.Result{Title: "VPN Connection Problems", Steps: []string{"Restart the VPN client.", "Check the password."}}
	tests := []struct {
		name     string
		escalate bool
		incident string
		want     string
	}{
		{"sure", false, "", "Thanks for the report. This looks like vpn connection problems; a technician has the steps to fix it and will " +
			"reply here. Add anything that changes, such as an error message or when it started."},
		{"unsure: a technician takes it", true, "", "Thanks for the report. It looks like it may be about vpn connection problems, but I am " +
			"not sure enough, so a technician will pick it up and reply here."},
		{"an incident", true, triage.IncidentRansomware, "Thanks for reporting this. It looks like ransomware, a security incident: the on-call " +
			"technician has been alerted and will contact you. Until then: " + triage.RequesterAdvice(triage.IncidentRansomware)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := firstReply(res, tc.escalate, tc.incident)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			for _, step := range res.Steps { // the runbook is the technician's
				if strings.Contains(got, step) {
					t.Errorf("the requester's reply holds the step %q", step)
				}
			}
		})
	}
}

func TestSupportParamsValidate(t *testing.T) {
	required := map[string]string{"ticket_id": "or a prompt, subject or description is required"}
	tests := []struct {
		name string
		p    supportParams
		want map[string]string
	}{
		{"a ticket", supportParams{TicketID: "tkt_1"}, nil},
		{"a prompt", supportParams{Prompt: "printer offline"}, nil},
		{"a subject", supportParams{Subject: "VPN"}, nil},
		{"a description", supportParams{Description: "cannot log in"}, nil},
		{"nothing", supportParams{}, required},
		{"only blanks", supportParams{Prompt: " ", Subject: "\t", Description: "\n"}, required},
		{"subject at the limit", supportParams{Subject: strings.Repeat("s", 200)}, nil},
		{"subject over the limit", supportParams{Subject: strings.Repeat("s", 201)},
			map[string]string{"subject": "must be at most 200 bytes (it has 201)"}},
		{"description over the limit", supportParams{Description: strings.Repeat("d", 10_001)},
			map[string]string{"description": "must be at most 10000 bytes (it has 10001)"}},
		{"ticket id at the limit", supportParams{TicketID: strings.Repeat("t", 64)}, nil},
		{"ticket id over the limit", supportParams{TicketID: strings.Repeat("t", 65)},
			map[string]string{"ticket_id": "must be at most 64 bytes (it has 65)"}},
		{"prompt over the limit", supportParams{Prompt: strings.Repeat("p", 4001)},
			map[string]string{"prompt": "must be at most 4000 bytes (it has 4001)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p valid.Problems
			tc.p.Validate(&p)
			if got := problemMap(p.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
			if tc.p.TicketRef() != tc.p.TicketID {
				t.Errorf("TicketRef %q", tc.p.TicketRef())
			}
		})
	}
}
