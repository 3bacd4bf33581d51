package ticket

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"garrison/actor"
	"garrison/valid"
)

// fakeStore is a Store holding one ticket, recording what the desk asks.
type fakeStore struct {
	ticket Ticket
	err    error // returned by every call when set

	submitted   []New
	triageAgent string
	listed      []string // status filters
	writes      []Write
	messages    []Message
}

func (s *fakeStore) SubmitTicket(_ context.Context, n New, triageAgent string) (Ticket, error) {
	s.submitted, s.triageAgent = append(s.submitted, n), triageAgent
	if s.err != nil {
		return Ticket{}, s.err
	}
	return Ticket{ID: "tkt_1", OrgID: n.OrgID, CreatedBy: n.CreatedBy, Subject: n.Subject, Description: n.Description,
		Priority: n.Priority, Status: Open}, nil
}

func (s *fakeStore) Ticket(context.Context, actor.Actor, string) (Ticket, error) {
	return s.ticket, s.err
}

func (s *fakeStore) Tickets(_ context.Context, _ actor.Actor, status string, _, _ int) ([]Ticket, int, error) {
	s.listed = append(s.listed, status)
	return []Ticket{s.ticket}, 1, s.err
}

func (s *fakeStore) TicketDetail(context.Context, actor.Actor, string) (Detail, error) {
	return Detail{Ticket: s.ticket}, s.err
}

// UpdateTicket applies the write's check to the ticket as it is, as the
// store does inside its transaction.
func (s *fakeStore) UpdateTicket(_ context.Context, _ actor.Actor, _ string, w Write) (Detail, error) {
	s.writes = append(s.writes, w)
	if s.err != nil {
		return Detail{}, s.err
	}
	if err := w.Check(s.ticket); err != nil {
		return Detail{}, err
	}
	if w.Status != nil {
		s.ticket.Status = *w.Status
	}
	return Detail{Ticket: s.ticket}, nil
}

func (s *fakeStore) AddTicketMessage(_ context.Context, _ actor.Actor, _ string, m Message) error {
	s.messages = append(s.messages, m)
	return s.err
}

type fakeQueue struct{ woken int }

func (q *fakeQueue) Notify() { q.woken++ }

var (
	admin  = actor.Actor{Kind: actor.Person, OrgID: "org_1", ID: "usr_admin", Role: actor.RoleAdmin}
	member = actor.Actor{Kind: actor.Person, OrgID: "org_1", ID: "usr_member", Role: actor.RoleMember}
	apiKey = actor.Actor{Kind: actor.Key, OrgID: "org_1", ID: "key_1", Scope: actor.ScopeWrite}
)

// problems is a validation error's field → message, or nil.
func problems(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *valid.Error
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a validation error", err)
	}
	out := map[string]string{}
	for _, p := range ve.Problems {
		out[p.Field] = p.Message
	}
	return out
}

func sameProblems(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSubmitValidation(t *testing.T) {
	tests := []struct {
		name         string
		s            Submission
		want         map[string]string
		wantSubject  string
		wantPriority string
	}{
		{"valid", Submission{Subject: "VPN down", Description: "Since 9am", Priority: "high"}, nil, "VPN down", "high"},
		{"priority defaults to medium", Submission{Subject: "VPN down", Description: "d"}, nil, "VPN down", "medium"},
		{"subject trimmed", Submission{Subject: "  VPN down \t", Description: "d", Priority: "low"}, nil, "VPN down", "low"},
		{"subject at the limit", Submission{Subject: strings.Repeat("s", MaxSubject), Description: "d"}, nil, strings.Repeat("s", MaxSubject), "medium"},
		{"subject at the limit once trimmed", Submission{Subject: " " + strings.Repeat("s", MaxSubject) + " ", Description: "d"}, nil,
			strings.Repeat("s", MaxSubject), "medium"},
		{"description at the limit", Submission{Subject: "s", Description: strings.Repeat("d", MaxText)}, nil, "s", "medium"},
		{"description keeps its lines", Submission{Subject: "s", Description: "line 1\nline 2\ttab"}, nil, "s", "medium"},

		{"subject missing", Submission{Description: "d"}, map[string]string{"subject": "is required"}, "", ""},
		{"subject only spaces", Submission{Subject: "   ", Description: "d"}, map[string]string{"subject": "is required"}, "", ""},
		{"subject over the limit", Submission{Subject: strings.Repeat("s", MaxSubject+1), Description: "d"},
			map[string]string{"subject": "must be at most 200 bytes (it has 201)"}, "", ""},
		{"subject of two lines", Submission{Subject: "VPN\ndown", Description: "d"}, map[string]string{"subject": "must be one line"}, "", ""},
		{"subject with a control character", Submission{Subject: "VPN\x07", Description: "d"},
			map[string]string{"subject": "must be UTF-8 text without control characters other than newline and tab"}, "", ""},
		{"description missing", Submission{Subject: "s"}, map[string]string{"description": "is required"}, "", ""},
		{"description of blanks", Submission{Subject: "s", Description: " \n\t"}, map[string]string{"description": "is required"}, "", ""},
		{"description over the limit", Submission{Subject: "s", Description: strings.Repeat("d", MaxText+1)},
			map[string]string{"description": "must be at most 10000 bytes (it has 10001)"}, "", ""},
		{"unknown priority", Submission{Subject: "s", Description: "d", Priority: "urgent"},
			map[string]string{"priority": "must be low, medium or high"}, "", ""},
		{"everything wrong at once", Submission{Priority: "p0"},
			map[string]string{"subject": "is required", "description": "is required", "priority": "must be low, medium or high"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, q, spent := &fakeStore{}, &fakeQueue{}, 0
			got, err := Submit(context.Background(), st, q, member, tc.s, "tech-support", func() error { spent++; return nil })
			if p := problems(t, err); !sameProblems(p, tc.want) {
				t.Fatalf("problems %v, want %v", p, tc.want)
			}
			if tc.want != nil {
				if spent != 0 || len(st.submitted) != 0 || q.woken != 0 {
					t.Fatalf("a refused submission spent %d runs, stored %d tickets, woke the agents %d times", spent, len(st.submitted), q.woken)
				}
				return
			}
			if spent != 1 || len(st.submitted) != 1 || q.woken != 1 {
				t.Fatalf("spent %d, stored %d, woke %d; want 1 each", spent, len(st.submitted), q.woken)
			}
			want := New{OrgID: "org_1", CreatedBy: "usr_member", Subject: tc.wantSubject, Description: tc.s.Description, Priority: tc.wantPriority}
			if st.submitted[0] != want || st.triageAgent != "tech-support" {
				t.Errorf("stored %+v for %q, want %+v for tech-support", st.submitted[0], st.triageAgent, want)
			}
			if got.ID != "tkt_1" || got.Subject != tc.wantSubject {
				t.Errorf("returned %+v", got)
			}
		})
	}
}

func TestSubmitSpendAndStoreFailures(t *testing.T) {
	budget := errors.New("run budget spent")
	broken := errors.New("disk full")
	tests := []struct {
		name       string
		spend      error
		store      error
		want       error
		wantStored int
		wantWoken  int
	}{
		{"spend refuses: nothing stored", budget, nil, budget, 0, 0},
		{"store fails: agents not woken", nil, broken, broken, 1, 0},
		{"both fine", nil, nil, nil, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, q := &fakeStore{err: tc.store}, &fakeQueue{}
			_, err := Submit(context.Background(), st, q, admin, Submission{Subject: "s", Description: "d"}, "tech-support",
				func() error { return tc.spend })
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if len(st.submitted) != tc.wantStored || q.woken != tc.wantWoken {
				t.Errorf("stored %d woke %d, want %d and %d", len(st.submitted), q.woken, tc.wantStored, tc.wantWoken)
			}
		})
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name   string
		status string
		want   map[string]string
	}{
		{"all", "", nil},
		{"open", Open, nil},
		{"escalated", Escalated, nil},
		{"closed", Closed, nil},
		{"unknown", "done", map[string]string{"status": "must be one of open, in_progress, escalated, resolved, closed"}},
		{"wrong case", "Open", map[string]string{"status": "must be one of open, in_progress, escalated, resolved, closed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{ticket: Ticket{ID: "tkt_1"}}
			got, total, err := List(context.Background(), st, admin, tc.status, 20, 0)
			if p := problems(t, err); !sameProblems(p, tc.want) {
				t.Fatalf("problems %v, want %v", p, tc.want)
			}
			if tc.want != nil {
				if len(st.listed) != 0 || got != nil || total != 0 {
					t.Fatalf("a refused filter reached the store: %v", st.listed)
				}
				return
			}
			if !slices.Equal(st.listed, []string{tc.status}) || total != 1 || len(got) != 1 {
				t.Errorf("listed %v, got %d of %d", st.listed, len(got), total)
			}
		})
	}
}

func TestUpdateValidation(t *testing.T) {
	tests := []struct {
		name string
		edit Edit
		want map[string]string
	}{
		{"status", Edit{Status: ptr(Resolved)}, nil},
		{"priority", Edit{Priority: ptr("low")}, nil},
		{"assignee", Edit{Assignee: ptr("usr_2")}, nil},
		{"unassign", Edit{Assignee: ptr("")}, nil},
		{"note at the limit", Edit{Status: ptr(Resolved), Note: strings.Repeat("n", maxNote)}, nil},
		{"nothing to change", Edit{Note: "just a note"}, map[string]string{"status": "or priority or assignee is required"}},
		{"unknown status", Edit{Status: ptr("done")}, map[string]string{"status": "must be one of open, in_progress, escalated, resolved, closed"}},
		{"unknown priority", Edit{Priority: ptr("urgent")}, map[string]string{"priority": "must be low, medium or high"}},
		{"empty priority", Edit{Priority: ptr("")}, map[string]string{"priority": "must be low, medium or high"}},
		{"note over the limit", Edit{Status: ptr(Resolved), Note: strings.Repeat("n", maxNote+1)},
			map[string]string{"note": "must be at most 2000 bytes (it has 2001)"}},
		{"note with a control character", Edit{Status: ptr(Resolved), Note: "a\x00b"},
			map[string]string{"note": "must be UTF-8 text without control characters other than newline and tab"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{ticket: Ticket{ID: "tkt_1", Status: Open}}
			_, err := Update(context.Background(), st, admin, "tkt_1", tc.edit)
			if p := problems(t, err); !sameProblems(p, tc.want) {
				t.Fatalf("problems %v, want %v", p, tc.want)
			}
			if wrote := len(st.writes); (tc.want == nil) != (wrote == 1) {
				t.Fatalf("%d writes reached the store", wrote)
			}
			if tc.want == nil {
				w := st.writes[0]
				if w.Actor != "usr_admin" || w.Note != tc.edit.Note || w.Status != tc.edit.Status || w.Priority != tc.edit.Priority ||
					w.Assignee != tc.edit.Assignee || w.Check == nil {
					t.Errorf("write %+v does not carry the edit %+v", w, tc.edit)
				}
			}
		})
	}
}

// TestUpdateChecksWhoAndStatus: the check the desk hands the store judges
// the ticket as the store holds it, by who is asking.
func TestUpdateChecksWhoAndStatus(t *testing.T) {
	tests := []struct {
		name    string
		who     actor.Actor
		current string
		edit    Edit
		want    string // "" allowed, "limits", "move"
	}{
		{"member resolves", member, Open, Edit{Status: ptr(Resolved)}, ""},
		{"member reopens a closed ticket", member, Closed, Edit{Status: ptr(Open)}, ""},
		{"member reopens an escalated ticket", member, Escalated, Edit{Status: ptr(Open)}, "limits"},
		{"member sets priority", member, Open, Edit{Priority: ptr("high")}, "limits"},
		{"member assigns", member, Open, Edit{Assignee: ptr("usr_member")}, "limits"},
		{"admin sets priority", admin, Open, Edit{Priority: ptr("high")}, ""},
		{"admin opens an escalated ticket", admin, Escalated, Edit{Status: ptr(Open)}, ""},
		{"admin moves a closed ticket to in progress", admin, Closed, Edit{Status: ptr(InProgress)}, "move"},
		{"key assigns", apiKey, Open, Edit{Assignee: ptr("usr_2")}, ""},
		{"key escalates", apiKey, InProgress, Edit{Status: ptr(Escalated)}, ""},
		{"key resolves a closed ticket", apiKey, Closed, Edit{Status: ptr(Resolved)}, "move"},
		{"Garrison escalates", actor.Garrison("org_1"), Open, Edit{Status: ptr(Escalated)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{ticket: Ticket{ID: "tkt_1", Status: tc.current}}
			d, err := Update(context.Background(), st, tc.who, "tkt_1", tc.edit)
			var me *MoveError
			switch tc.want {
			case "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tc.edit.Status != nil && d.Status != *tc.edit.Status {
					t.Errorf("status %s, want %s", d.Status, *tc.edit.Status)
				}
			case "limits":
				if !errors.Is(err, ErrMemberLimits) {
					t.Fatalf("got %v, want ErrMemberLimits", err)
				}
			case "move":
				if !errors.As(err, &me) || me.From != tc.current {
					t.Fatalf("got %v, want a MoveError from %s", err, tc.current)
				}
			}
		})
	}
}

func TestReply(t *testing.T) {
	tests := []struct {
		name     string
		who      actor.Actor
		body     string
		want     map[string]string
		wantKind string
	}{
		{"a person", member, "It works now", nil, AuthorUser},
		{"an admin", admin, "Looking into it", nil, AuthorUser},
		{"an API key", apiKey, "Automated update", nil, AuthorAPIKey},
		{"body at the limit", member, strings.Repeat("b", MaxText), nil, AuthorUser},
		{"empty body", member, "", map[string]string{"body": "is required"}, ""},
		{"blank body", member, " \n ", map[string]string{"body": "is required"}, ""},
		{"body over the limit", member, strings.Repeat("b", MaxText+1), map[string]string{"body": "must be at most 10000 bytes (it has 10001)"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &fakeStore{}
			m, err := Reply(context.Background(), st, tc.who, "tkt_1", tc.body)
			if p := problems(t, err); !sameProblems(p, tc.want) {
				t.Fatalf("problems %v, want %v", p, tc.want)
			}
			if tc.want != nil {
				if len(st.messages) != 0 {
					t.Fatal("a refused reply reached the store")
				}
				return
			}
			want := Message{Author: tc.who.ID, AuthorKind: tc.wantKind, Body: tc.body}
			if m != want || len(st.messages) != 1 || st.messages[0] != want {
				t.Errorf("returned %+v, stored %+v; want %+v", m, st.messages, want)
			}
		})
	}
	t.Run("store failure returns no message", func(t *testing.T) {
		broken := errors.New("ticket gone")
		m, err := Reply(context.Background(), &fakeStore{err: broken}, member, "tkt_1", "hello")
		if !errors.Is(err, broken) || m != (Message{}) {
			t.Errorf("got %+v, %v", m, err)
		}
	})
}
