package ticket

import (
	"errors"
	"strings"
	"testing"

	"garrison/fault"
	"garrison/valid"
)

func ptr(s string) *string { return &s }

// TestStatusMoves: every move an admin (or a key, or Garrison) asks for,
// from each status to each status, allowed or refused with a MoveError.
func TestStatusMoves(t *testing.T) {
	tests := []struct {
		from, to string
		ok       bool
	}{
		{Open, Open, true},
		{Open, InProgress, true},
		{Open, Escalated, true},
		{Open, Resolved, true},
		{Open, Closed, true},

		{InProgress, Open, true},
		{InProgress, InProgress, true},
		{InProgress, Escalated, true},
		{InProgress, Resolved, true},
		{InProgress, Closed, true},

		{Escalated, Open, true},
		{Escalated, InProgress, true},
		{Escalated, Escalated, true},
		{Escalated, Resolved, true},
		{Escalated, Closed, true},

		{Resolved, Open, true},
		{Resolved, InProgress, false},
		{Resolved, Escalated, false},
		{Resolved, Resolved, true},
		{Resolved, Closed, true},

		{Closed, Open, true},
		{Closed, InProgress, false},
		{Closed, Escalated, false},
		{Closed, Resolved, false},
		{Closed, Closed, true},
	}
	if len(tests) != len(Statuses)*len(Statuses) {
		t.Fatalf("%d cases for %d statuses", len(tests), len(Statuses))
	}
	for _, tc := range tests {
		t.Run(tc.from+"_to_"+tc.to, func(t *testing.T) {
			err := checkMove(Ticket{Status: tc.from}, false, ptr(tc.to), nil, nil)
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var me *MoveError
			if !errors.As(err, &me) || me.From != tc.from || me.To != tc.to {
				t.Fatalf("got %v, want a MoveError from %s to %s", err, tc.from, tc.to)
			}
		})
	}
}

func TestMoveErrorWording(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"resolved", Resolved, InProgress, "A resolved ticket cannot move to in_progress; allowed: open, closed"},
		{"closed", Closed, Resolved, "A closed ticket cannot move to resolved; allowed: open"},
		{"closed to escalated", Closed, Escalated, "A closed ticket cannot move to escalated; allowed: open"},
		{"unknown status allows nothing", "archived", Open, "A archived ticket cannot move to open; allowed: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkMove(Ticket{Status: tc.from}, false, ptr(tc.to), nil, nil)
			var me *MoveError
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want a MoveError", err)
			}
			if me.Error() != tc.want {
				t.Errorf("message %q, want %q", me.Error(), tc.want)
			}
			f := fault.From(err)
			if f == nil || f.Code != fault.Conflict || f.Message != tc.want {
				t.Errorf("fault %+v, want conflict %q", f, tc.want)
			}
		})
	}
}

// TestMemberLimits: a member (a person without the admin role) may only
// resolve, close or reopen; "open" only reopens a resolved or closed ticket.
func TestMemberLimits(t *testing.T) {
	tests := []struct {
		name     string
		current  string
		status   *string
		priority *string
		assignee *string
		want     string // "" allowed, "limits", "move"
	}{
		{"resolve an open ticket", Open, ptr(Resolved), nil, nil, ""},
		{"close an open ticket", Open, ptr(Closed), nil, nil, ""},
		{"resolve an escalated ticket", Escalated, ptr(Resolved), nil, nil, ""},
		{"close an in-progress ticket", InProgress, ptr(Closed), nil, nil, ""},
		{"reopen a resolved ticket", Resolved, ptr(Open), nil, nil, ""},
		{"reopen a closed ticket", Closed, ptr(Open), nil, nil, ""},
		{"open an open ticket stays", Open, ptr(Open), nil, nil, ""},
		{"close a resolved ticket", Resolved, ptr(Closed), nil, nil, ""},
		{"open pulls an in-progress ticket from the queue", InProgress, ptr(Open), nil, nil, "limits"},
		{"open pulls an escalated ticket from the queue", Escalated, ptr(Open), nil, nil, "limits"},
		{"start work", Open, ptr(InProgress), nil, nil, "limits"},
		{"escalate", Open, ptr(Escalated), nil, nil, "limits"},
		{"escalate an escalated ticket", Escalated, ptr(Escalated), nil, nil, "limits"},
		{"set the priority", Open, nil, ptr("high"), nil, "limits"},
		{"set the priority with an allowed status", Open, ptr(Resolved), ptr("low"), nil, "limits"},
		{"assign", Open, nil, nil, ptr("usr_1"), "limits"},
		{"unassign", Open, nil, nil, ptr(""), "limits"},
		{"resolve a closed ticket: the status refuses", Closed, ptr(Resolved), nil, nil, "move"},
		{"no change at all", Open, nil, nil, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkMove(Ticket{Status: tc.current}, true, tc.status, tc.priority, tc.assignee)
			var me *MoveError
			switch tc.want {
			case "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			case "limits":
				if !errors.Is(err, ErrMemberLimits) {
					t.Fatalf("got %v, want ErrMemberLimits", err)
				}
				if f := fault.From(err); f == nil || f.Code != fault.Forbidden {
					t.Errorf("fault %+v, want forbidden", f)
				}
			case "move":
				if !errors.As(err, &me) {
					t.Fatalf("got %v, want a MoveError", err)
				}
			}
		})
	}
}

// TestAdminChanges: admins may change priority and assignee in any status,
// and move a ticket out of the queue.
func TestAdminChanges(t *testing.T) {
	tests := []struct {
		name     string
		current  string
		status   *string
		priority *string
		assignee *string
	}{
		{"priority of a closed ticket", Closed, nil, ptr("high"), nil},
		{"assign a resolved ticket", Resolved, nil, nil, ptr("usr_1")},
		{"unassign", InProgress, nil, nil, ptr("")},
		{"open an escalated ticket", Escalated, ptr(Open), nil, nil},
		{"open an in-progress ticket", InProgress, ptr(Open), nil, nil},
		{"escalate with priority and assignee", Open, ptr(Escalated), ptr("high"), ptr("usr_2")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkMove(Ticket{Status: tc.current}, false, tc.status, tc.priority, tc.assignee); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

func TestResolves(t *testing.T) {
	tests := []struct {
		status string
		want   bool
	}{
		{Open, false}, {InProgress, false}, {Escalated, false}, {Resolved, true}, {Closed, true}, {"", false},
	}
	for _, tc := range tests {
		t.Run("status_"+tc.status, func(t *testing.T) {
			if got := Resolves(tc.status); got != tc.want {
				t.Errorf("Resolves(%q) = %v, want %v", tc.status, got, tc.want)
			}
		})
	}
}

func TestTriageEscalates(t *testing.T) {
	tests := []struct {
		status string
		want   bool
	}{
		{Open, true}, {InProgress, false}, {Escalated, false}, {Resolved, false}, {Closed, false}, {"", false},
	}
	for _, tc := range tests {
		t.Run("status_"+tc.status, func(t *testing.T) {
			if got := TriageEscalates(tc.status); got != tc.want {
				t.Errorf("TriageEscalates(%q) = %v, want %v", tc.status, got, tc.want)
			}
		})
	}
}

func TestManualEscalation(t *testing.T) {
	tests := []struct {
		name, actor, note string
		want              Escalation
	}{
		{"the note says why", "usr_1", "customer is down", Escalation{Reason: "customer is down", Actor: "usr_1"}},
		{"without a note the entry says who", "usr_1", "", Escalation{Reason: "Escalated by usr_1", Actor: "usr_1"}},
		{"a key escalating", "key_9", "", Escalation{Reason: "Escalated by key_9", Actor: "key_9"}},
		{"a note of spaces is kept as given", "usr_1", " ", Escalation{Reason: " ", Actor: "usr_1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ManualEscalation(tc.actor, tc.note)
			if got.Reason != tc.want.Reason || got.Actor != tc.want.Actor || got.Confidence != nil || !got.At.IsZero() {
				t.Errorf("ManualEscalation(%q, %q) = %+v, want %+v", tc.actor, tc.note, got, tc.want)
			}
		})
	}
}

func TestUntriagedEscalation(t *testing.T) {
	tests := []struct {
		runStatus, want string
	}{
		{"failed", "Automatic triage failed; a technician needs to review this ticket."},
		{"cancelled", "Automatic triage cancelled; a technician needs to review this ticket."},
	}
	for _, tc := range tests {
		t.Run(tc.runStatus, func(t *testing.T) {
			got := UntriagedEscalation(tc.runStatus)
			if got.Reason != tc.want || got.Actor != "garrison" || got.Confidence != nil {
				t.Errorf("UntriagedEscalation(%q) = %+v, want reason %q by garrison", tc.runStatus, got, tc.want)
			}
		})
	}
}

func TestValidStatus(t *testing.T) {
	tests := []struct {
		status string
		ok     bool
	}{
		{"", true}, {Open, true}, {InProgress, true}, {Escalated, true}, {Resolved, true}, {Closed, true},
		{"OPEN", false}, {"in-progress", false}, {"pending", false}, {" open", false},
	}
	for _, tc := range tests {
		t.Run("status_"+tc.status, func(t *testing.T) {
			var p valid.Problems
			ValidStatus(&p, "filter", tc.status)
			err := p.Err()
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			want := "Invalid request: filter must be one of open, in_progress, escalated, resolved, closed"
			if err == nil || err.Error() != want {
				t.Fatalf("got %v, want %q", err, want)
			}
		})
	}
}

func TestValidPriority(t *testing.T) {
	tests := []struct {
		priority string
		ok       bool
	}{
		{"low", true}, {"medium", true}, {"high", true}, {"", false}, {"urgent", false}, {"High", false}, {"critical", false},
	}
	for _, tc := range tests {
		t.Run("priority_"+tc.priority, func(t *testing.T) {
			var p valid.Problems
			validPriority(&p, tc.priority)
			err := p.Err()
			if tc.ok != (err == nil) {
				t.Fatalf("validPriority(%q): %v", tc.priority, err)
			}
			if err != nil && !strings.HasSuffix(err.Error(), "priority must be low, medium or high") {
				t.Errorf("message %q", err)
			}
		})
	}
}
