package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/actor"
	"garrison/fault"
	"garrison/ticket"
)

// Notification is an in-app notice for the organization's admins or one user.
type Notification struct {
	ID        string
	Audience  string // AudienceAdmins, AudienceOrg or a user id
	Kind      string
	Title     string
	Body      string
	Ref       string
	CreatedAt time.Time
	Read      bool // by the reader who asked
}

// AudienceAdmins addresses a notification to every admin of the organization.
const AudienceAdmins = "admins"

// ticketColumns are read from tickets t LEFT JOIN agent_runs r on the triage run.
const ticketColumns = `t.id, t.org_id, t.created_by, t.subject, t.description, t.priority, t.status, COALESCE(t.assignee, ''),
	t.triage, t.resolution_steps, COALESCE(t.triage_run_id, ''), COALESCE(r.status, ''), t.created_at, t.updated_at, t.resolved_at,
	COALESCE(t.alert_id, '')`

const ticketFrom = ` FROM tickets t LEFT JOIN agent_runs r ON r.id = t.triage_run_id `

func scanTicket(row interface{ Scan(...any) error }) (ticket.Ticket, error) {
	var t ticket.Ticket
	var triage, steps sql.NullString
	var created, updated int64
	var resolved sql.NullInt64
	err := row.Scan(&t.ID, &t.OrgID, &t.CreatedBy, &t.Subject, &t.Description, &t.Priority, &t.Status, &t.Assignee,
		&triage, &steps, &t.TriageRunID, &t.TriageRunStatus, &created, &updated, &resolved, &t.AlertID)
	if errors.Is(err, sql.ErrNoRows) {
		return ticket.Ticket{}, ErrNotFound
	}
	if err != nil {
		return ticket.Ticket{}, err
	}
	if triage.Valid {
		t.Triage = json.RawMessage(triage.String)
	}
	if steps.Valid {
		t.ResolutionSteps = json.RawMessage(steps.String)
	}
	t.CreatedAt, t.UpdatedAt, t.ResolvedAt = fromMS(created), fromMS(updated), optMS(resolved)
	return t, nil
}

// SubmitTicket stores an open ticket and, in the same transaction, queues
// the triage run of triageAgent for it: a ticket is never left untriaged.
func (s *Store) SubmitTicket(ctx context.Context, n ticket.New, triageAgent string) (ticket.Ticket, error) {
	now := s.now()
	t := ticket.Ticket{ID: NewID("tkt", now), OrgID: n.OrgID, CreatedBy: n.CreatedBy, Subject: n.Subject, Description: n.Description,
		Priority: n.Priority, Status: ticket.Open, CreatedAt: fromMS(ms(now)), UpdatedAt: fromMS(ms(now)), AlertID: n.AlertID}
	err := s.write(ctx, func(tx *sql.Tx) error {
		params, _ := json.Marshal(map[string]string{"ticket_id": t.ID})
		run, err := queueRun(ctx, tx, NewRun{OrgID: n.OrgID, Agent: triageAgent, Params: params, RequestedBy: n.CreatedBy}, now)
		if err != nil {
			return err
		}
		t.TriageRunID, t.TriageRunStatus = run.ID, run.Status
		if _, err := tx.ExecContext(ctx, `INSERT INTO tickets (id, org_id, created_by, subject, description, priority, status,
			triage_run_id, created_at, updated_at, alert_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))`,
			t.ID, t.OrgID, t.CreatedBy, t.Subject, t.Description, t.Priority, t.Status, run.ID, ms(now), ms(now), n.AlertID); err != nil {
			if isUniqueViolation(err) {
				return alertHasTicket(ctx, tx, n.AlertID)
			}
			return fmt.Errorf("insert ticket: %w", err)
		}
		if n.AlertID == "" {
			return nil
		}
		res, err := tx.ExecContext(ctx, `UPDATE alerts SET ticket_id = ?, updated_at = ? WHERE id = ? AND org_id = ? AND ticket_id IS NULL`,
			t.ID, ms(now), n.AlertID, n.OrgID)
		if err != nil {
			return fmt.Errorf("link the alert's ticket: %w", err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return alertHasTicket(ctx, tx, n.AlertID)
		}
		return nil
	})
	if err != nil {
		return ticket.Ticket{}, err
	}
	return t, nil
}

// ticketsSeenBy selects the tickets who sees (actor.Actor.Owner): the
// organization's, or those a member submitted or is assigned.
func ticketsSeenBy(who actor.Actor) (string, []any) {
	owner := who.Owner()
	if owner == "" {
		return "t.org_id = ?", []any{who.OrgID}
	}
	return "t.org_id = ? AND (t.created_by = ? OR t.assignee = ?)", []any{who.OrgID, owner, owner}
}

// Ticket returns one ticket who sees.
func (s *Store) Ticket(ctx context.Context, who actor.Actor, id string) (ticket.Ticket, error) {
	return readTicket(ctx, s.reader, who, id)
}

func readTicket(ctx context.Context, q querier, who actor.Actor, id string) (ticket.Ticket, error) {
	where, args := ticketsSeenBy(who)
	t, err := scanTicket(q.QueryRowContext(ctx, `SELECT `+ticketColumns+ticketFrom+`WHERE t.id = ? AND `+where, append([]any{id}, args...)...))
	if err != nil && !errors.Is(err, ErrNotFound) {
		err = fmt.Errorf("ticket: %w", err)
	}
	return t, err
}

// Tickets lists the tickets who sees, newest first.
func (s *Store) Tickets(ctx context.Context, who actor.Actor, status string, limit, offset int) ([]ticket.Ticket, int, error) {
	where, args := ticketsSeenBy(who)
	if status != "" {
		where += " AND t.status = ?"
		args = append(args, status)
	}
	return readPage(ctx, s, pageQuery{what: "tickets", args: args,
		count: `SELECT COUNT(*) FROM tickets t WHERE ` + where,
		list: `SELECT ` + ticketColumns + ticketFrom + `WHERE ` + where +
			` ORDER BY t.created_at DESC, t.rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: limit, Offset: offset}, func(rows *sql.Rows) (ticket.Ticket, error) { return scanTicket(rows) })
}

// TicketDetail reads a ticket in scope and its thread in one snapshot.
func (s *Store) TicketDetail(ctx context.Context, who actor.Actor, id string) (ticket.Detail, error) {
	var d ticket.Detail
	err := s.read(ctx, func(tx querier) error {
		var err error
		if d.Ticket, err = readTicket(ctx, tx, who, id); err != nil {
			return err
		}
		d.Messages, d.Changes, d.Escalations, err = ticketThread(ctx, tx, id)
		return err
	})
	return d, err
}

// ticketThread reads the thread of a ticket already read in scope.
func ticketThread(ctx context.Context, tx querier, id string) ([]ticket.Message, []ticket.Change, []ticket.Escalation, error) {
	var msgs []ticket.Message
	var changes []ticket.Change
	var escalations []ticket.Escalation
	err := func() error {
		rows, err := tx.QueryContext(ctx, `SELECT author, author_kind, body, at FROM ticket_messages WHERE ticket_id = ? ORDER BY id`, id)
		if err != nil {
			return fmt.Errorf("ticket messages: %w", err)
		}
		for rows.Next() {
			var m ticket.Message
			var at int64
			if err := rows.Scan(&m.Author, &m.AuthorKind, &m.Body, &at); err != nil {
				rows.Close()
				return fmt.Errorf("ticket messages: %w", err)
			}
			m.At = fromMS(at)
			msgs = append(msgs, m)
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, `SELECT field, COALESCE(old_value, ''), COALESCE(new_value, ''), actor, note, at
			FROM ticket_history WHERE ticket_id = ? ORDER BY id`, id)
		if err != nil {
			return fmt.Errorf("ticket history: %w", err)
		}
		for rows.Next() {
			var c ticket.Change
			var at int64
			if err := rows.Scan(&c.Field, &c.OldValue, &c.NewValue, &c.Actor, &c.Note, &at); err != nil {
				rows.Close()
				return fmt.Errorf("ticket history: %w", err)
			}
			c.At = fromMS(at)
			changes = append(changes, c)
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, `SELECT reason, confidence, actor, at FROM ticket_escalations WHERE ticket_id = ? ORDER BY id`, id)
		if err != nil {
			return fmt.Errorf("ticket escalations: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var e ticket.Escalation
			var confidence sql.NullFloat64
			var at int64
			if err := rows.Scan(&e.Reason, &confidence, &e.Actor, &at); err != nil {
				return fmt.Errorf("ticket escalations: %w", err)
			}
			if confidence.Valid {
				e.Confidence = &confidence.Float64
			}
			e.At = fromMS(at)
			escalations = append(escalations, e)
		}
		return rows.Err()
	}()
	return msgs, changes, escalations, err
}

// ApplyTriage records a triage on a ticket that has none yet, and reports
// whether it did: a run repeated after a crash must not triage twice.
// Escalation moves an open ticket to escalated, logs why and notifies the
// organization's admins, all in one transaction.
func (s *Store) ApplyTriage(ctx context.Context, orgID, ticketID string, tr ticket.Triage) (bool, error) {
	now := ms(s.now())
	applied := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		applied = false // a write run again (PostgreSQL) starts over
		var status, subject string
		// Only a run still running may triage: a cancelled or timed-out
		// one must leave the ticket to the human queue.
		err := tx.QueryRowContext(ctx, `UPDATE tickets SET triage = ?, resolution_steps = ?, updated_at = ?
			WHERE id = ? AND org_id = ? AND triage IS NULL
			AND EXISTS (SELECT 1 FROM agent_runs WHERE id = ? AND status = 'running') RETURNING status, subject`,
			string(tr.Result), string(tr.Steps), now, ticketID, orgID, tr.RunID).Scan(&status, &subject)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("apply triage: %w", err)
		}
		applied = true
		if err := addMessage(ctx, tx, ticketID, tr.Actor, ticket.AuthorAgent, tr.Message, now); err != nil {
			return err
		}
		if tr.Escalate == nil || !ticket.TriageEscalates(status) {
			return nil
		}
		return escalate(ctx, tx, orgID, ticketID, subject, status, *tr.Escalate, now)
	})
	return applied, err
}

// escalate sends a ticket to the human queue: status, history, the
// escalation log and a notification for the admins.
func escalate(ctx context.Context, tx *sql.Tx, orgID, ticketID, subject, from string, e ticket.Escalation, now int64) error {
	if from != ticket.Escalated {
		if _, err := tx.ExecContext(ctx, `UPDATE tickets SET status = ?, updated_at = ? WHERE id = ?`, ticket.Escalated, now, ticketID); err != nil {
			return fmt.Errorf("escalate ticket: %w", err)
		}
		if err := addChange(ctx, tx, ticketID, ticket.Change{Field: "status", OldValue: from, NewValue: ticket.Escalated,
			Actor: e.Actor, Note: e.Reason}, now); err != nil {
			return err
		}
	}
	var confidence any
	if e.Confidence != nil {
		confidence = *e.Confidence
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ticket_escalations (ticket_id, reason, confidence, actor, at) VALUES (?, ?, ?, ?, ?)`,
		ticketID, e.Reason, confidence, e.Actor, now); err != nil {
		return fmt.Errorf("log escalation: %w", err)
	}
	return notify(ctx, tx, orgID, Notification{Audience: AudienceAdmins, Kind: "ticket_escalated",
		Title: "Ticket escalated: " + subject, Body: e.Reason, Ref: ticketID}, now)
}

func addMessage(ctx context.Context, tx *sql.Tx, ticketID, author, kind, body string, now int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO ticket_messages (ticket_id, author, author_kind, body, at) VALUES (?, ?, ?, ?, ?)`,
		ticketID, author, kind, body, now); err != nil {
		return fmt.Errorf("add ticket message: %w", err)
	}
	return nil
}

func addChange(ctx context.Context, tx *sql.Tx, ticketID string, c ticket.Change, now int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO ticket_history (ticket_id, field, old_value, new_value, actor, note, at)
		VALUES (?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?)`, ticketID, c.Field, c.OldValue, c.NewValue, c.Actor, c.Note, now); err != nil {
		return fmt.Errorf("ticket history: %w", err)
	}
	return nil
}

// UpdateTicket applies a change to a ticket in scope, recording each
// changed field in the history; escalating also logs and notifies as
// triage does.
func (s *Store) UpdateTicket(ctx context.Context, who actor.Actor, id string, u ticket.Write) (ticket.Detail, error) {
	now := ms(s.now())
	orgID := who.OrgID
	err := s.write(ctx, func(tx *sql.Tx) error {
		t, err := readTicket(ctx, tx, who, id)
		if err != nil {
			return err
		}
		if u.Check != nil {
			if err := u.Check(t); err != nil {
				return err
			}
		}
		if u.Assignee != nil && *u.Assignee != "" {
			if err := checkAssignee(ctx, tx, orgID, *u.Assignee); err != nil {
				return err
			}
		}
		set := func(field, column, old string, v *string) error {
			if v == nil || *v == old {
				return nil
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tickets SET `+column+` = NULLIF(?, ''), updated_at = ? WHERE id = ?`, *v, now, id); err != nil {
				return fmt.Errorf("update ticket %s: %w", field, err)
			}
			return addChange(ctx, tx, id, ticket.Change{Field: field, OldValue: old, NewValue: *v, Actor: u.Actor, Note: u.Note}, now)
		}
		if err := set("priority", "priority", t.Priority, u.Priority); err != nil {
			return err
		}
		if err := set("assignee", "assignee", t.Assignee, u.Assignee); err != nil {
			return err
		}
		if u.Status == nil || *u.Status == t.Status {
			return nil
		}
		if *u.Status == ticket.Escalated {
			return escalate(ctx, tx, orgID, id, t.Subject, t.Status, ticket.ManualEscalation(u.Actor, u.Note), now)
		}
		var resolvedAt any
		if ticket.Resolves(*u.Status) {
			resolvedAt = now
			if t.ResolvedAt != nil {
				resolvedAt = ms(*t.ResolvedAt)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tickets SET status = ?, resolved_at = ?, updated_at = ? WHERE id = ?`,
			*u.Status, resolvedAt, now, id); err != nil {
			return fmt.Errorf("update ticket status: %w", err)
		}
		return addChange(ctx, tx, id, ticket.Change{Field: "status", OldValue: t.Status, NewValue: *u.Status, Actor: u.Actor, Note: u.Note}, now)
	})
	if err != nil {
		return ticket.Detail{}, err
	}
	return s.TicketDetail(ctx, who, id)
}

// AddTicketMessage appends a message to a ticket in scope.
func (s *Store) AddTicketMessage(ctx context.Context, who actor.Actor, id string, m ticket.Message) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := readTicket(ctx, tx, who, id); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `UPDATE tickets SET updated_at = ? WHERE id = ?`, now, id)
		if err := expectOne(r, err, "touch ticket"); err != nil {
			return err
		}
		return addMessage(ctx, tx, id, m.Author, m.AuthorKind, m.Body, now)
	})
}

// TicketLoadSince summarises the organization's tickets.
func (s *Store) TicketLoadSince(ctx context.Context, orgID string, since time.Time) (ticket.Load, error) {
	l := ticket.Load{ByStatus: map[string]int{}}
	err := s.read(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, `SELECT status, COUNT(*) FROM tickets WHERE org_id = ? GROUP BY status`, orgID)
		if err != nil {
			return fmt.Errorf("ticket load: %w", err)
		}
		for rows.Next() {
			var status string
			var n int
			if err := rows.Scan(&status, &n); err != nil {
				rows.Close()
				return fmt.Errorf("ticket load: %w", err)
			}
			l.ByStatus[status] = n
		}
		rows.Close()
		var mean sql.NullFloat64
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), AVG(resolved_at - created_at) FROM tickets
			WHERE org_id = ? AND resolved_at >= ?`, orgID, ms(since)).Scan(&l.Resolved30d, &mean); err != nil {
			return fmt.Errorf("ticket resolution: %w", err)
		}
		l.MeanResolveTime = time.Duration(mean.Float64) * time.Millisecond
		return tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ticket_escalations e JOIN tickets t ON t.id = e.ticket_id
			WHERE t.org_id = ? AND e.at >= ?`, orgID, ms(since)).Scan(&l.Escalated30d)
	})
	return l, err
}

// escalateUntriaged sends to the human queue the open, untriaged ticket of
// each run in runIDs that ended without triaging it (failed or cancelled),
// in the transaction that ended the run.
func escalateUntriaged(ctx context.Context, tx *sql.Tx, runIDs []string, now int64) error {
	if len(runIDs) == 0 {
		return nil
	}
	args := make([]any, len(runIDs))
	for i, id := range runIDs {
		args[i] = id
	}
	rows, err := tx.QueryContext(ctx, `SELECT t.id, t.org_id, t.subject, r.status FROM tickets t INDEXED BY tickets_untriaged
		JOIN agent_runs r ON r.id = t.triage_run_id
		WHERE t.triage_run_id IN (`+placeholders(len(runIDs))+`) AND t.triage IS NULL AND t.status = 'open'
		AND r.status IN ('failed', 'cancelled')`, args...)
	if err != nil {
		return fmt.Errorf("find untriaged tickets: %w", err)
	}
	type orphan struct{ id, org, subject, runStatus string }
	var orphans []orphan
	for rows.Next() {
		var o orphan
		if err := rows.Scan(&o.id, &o.org, &o.subject, &o.runStatus); err != nil {
			rows.Close()
			return fmt.Errorf("find untriaged tickets: %w", err)
		}
		orphans = append(orphans, o)
	}
	rows.Close()
	for _, o := range orphans {
		if err := escalate(ctx, tx, o.org, o.id, o.subject, ticket.Open, ticket.UntriagedEscalation(o.runStatus), now); err != nil {
			return err
		}
	}
	return nil
}

// alertHasTicket is the refusal of a second ticket for an alert, naming
// the first; an alert that is not there is ErrNotFound.
func alertHasTicket(ctx context.Context, tx *sql.Tx, alertID string) error {
	var existing sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT ticket_id FROM alerts WHERE id = ?`, alertID).Scan(&existing)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("the alert's ticket: %w", err)
	}
	return &fault.Error{Code: fault.Conflict, Message: "This alert has a ticket already", ExistingID: existing.String}
}
