package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// AuditEntry is one security-relevant change.
type AuditEntry struct {
	ID        int64
	OrgID     string
	At        time.Time
	Actor     string // user id, API key id, "cli" or "" (an unknown caller)
	IP        string
	RequestID string
	Action    string // one of audit.Actions
	Target    string // the id acted on, when there is one
	Detail    map[string]string
	// Via is the provider whose staff or key acted in OrgID, a client of
	// it (audit.Record writes the entry in both logs); not a column.
	Via string
}

// AppendAudit records an entry.
func (s *Store) AppendAudit(ctx context.Context, e AuditEntry) error {
	detail, err := json.Marshal(e.Detail)
	if err != nil {
		return fmt.Errorf("audit detail: %w", err)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit_log (org_id, at, actor, ip, request_id, action, target, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			e.OrgID, ms(s.now()), e.Actor, e.IP, e.RequestID, e.Action, e.Target, string(detail)); err != nil {
			return fmt.Errorf("append audit entry: %w", err)
		}
		return nil
	})
}

// AuditQuery filters the audit log.
type AuditQuery struct {
	Action, Actor string
	From, To      *time.Time
}

// AuditLog lists the organization's entries, newest first.
func (s *Store) AuditLog(ctx context.Context, orgID string, q AuditQuery, p Page) ([]AuditEntry, int, error) {
	where, args := `org_id = ?`, []any{orgID}
	if q.Action != "" {
		where += ` AND action = ?`
		args = append(args, q.Action)
	}
	if q.Actor != "" {
		where += ` AND actor = ?`
		args = append(args, q.Actor)
	}
	if q.From != nil {
		where += ` AND at >= ?`
		args = append(args, ms(*q.From))
	}
	if q.To != nil {
		where += ` AND at <= ?` // inclusive, as for events: a whole-second to covers its second
		args = append(args, ms(*q.To))
	}
	return readPage(ctx, s, pageQuery{what: "audit log", args: args,
		count: `SELECT COUNT(*) FROM audit_log WHERE ` + where,
		list:  `SELECT id, org_id, at, actor, ip, request_id, action, target, detail FROM audit_log WHERE ` + where + ` ORDER BY id DESC LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (AuditEntry, error) {
			var e AuditEntry
			var at int64
			var detail string
			if err := rows.Scan(&e.ID, &e.OrgID, &at, &e.Actor, &e.IP, &e.RequestID, &e.Action, &e.Target, &detail); err != nil {
				return e, err
			}
			e.At = fromMS(at)
			return e, json.Unmarshal([]byte(detail), &e.Detail)
		})
}
