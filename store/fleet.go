package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/alerting"
	"garrison/event"
	"garrison/ticket"
)

// scopeClients is a subquery of the ids of the clients a ClientScope (?1
// provider, ?2 user) reaches.
var scopeClients = `(SELECT o.id FROM orgs o` + clientWhere + `)`

// ClientLive is what changes by the minute in a client: its open alerts
// by severity and the oldest open critical one, its last event, its open
// and escalated tickets. All of it is read from counters and indexes,
// never by scanning events.
type ClientLive struct {
	OpenAlerts     event.Counts
	OldestCritical *time.Time // the oldest open critical alert's creation
	LastEvent      *time.Time
	OpenTickets    int
	Escalated      int // open tickets waiting on a human
}

// FleetLive reads ClientLive of every client the scope reaches, by client
// id, in one snapshot.
func (s *Store) FleetLive(ctx context.Context, sc ClientScope) (map[string]*ClientLive, error) {
	out := map[string]*ClientLive{}
	row := func(id string) *ClientLive {
		c, ok := out[id]
		if !ok {
			c = &ClientLive{}
			out[id] = c
		}
		return c
	}
	err := s.read(ctx, func(tx querier) error {
		scope := []any{sc.ProviderID, sc.UserID}
		if err := eachRow(ctx, tx, `SELECT org_id, severity, SUM(n) FROM alert_counts WHERE status = 'open' AND org_id IN `+scopeClients+`
			GROUP BY org_id, severity`, scope, func(rows *sql.Rows) error {
			var id string
			var sev event.Severity
			var n int
			if err := rows.Scan(&id, &sev, &n); err != nil {
				return err
			}
			row(id).OpenAlerts[sev] += n
			return nil
		}); err != nil {
			return fmt.Errorf("fleet alerts: %w", err)
		}
		// One look per client into alerts_org_open_critical (migration 20).
		if err := eachRow(ctx, tx, `SELECT id, oldest FROM (SELECT o.id, (SELECT MIN(a.created_at) FROM alerts a
				WHERE a.org_id = o.id AND a.status = 'open' AND a.severity = 4) AS oldest FROM orgs o`+clientWhere+`) AS sub1
			WHERE oldest IS NOT NULL`, scope, func(rows *sql.Rows) error {
			var id string
			var at int64
			if err := rows.Scan(&id, &at); err != nil {
				return err
			}
			t := fromMS(at)
			row(id).OldestCritical = &t
			return nil
		}); err != nil {
			return fmt.Errorf("fleet oldest critical: %w", err)
		}
		// The sources' rollup, and the events the fold has not reached yet.
		if err := eachRow(ctx, tx, `SELECT org_id, MAX(last) FROM (
				SELECT org_id, MAX(last_seen) AS last FROM event_sources WHERE org_id IN `+scopeClients+` GROUP BY org_id
				UNION ALL SELECT n.org_id, MAX(e.ts) FROM events e NOT INDEXED CROSS JOIN org_numbers n
					WHERE n.num = e.org AND e.seq > (SELECT events_seq FROM fold_state) AND n.org_id IN `+scopeClients+` GROUP BY n.org_id) AS sub2
			GROUP BY org_id`, scope, func(rows *sql.Rows) error {
			var id string
			var at int64
			if err := rows.Scan(&id, &at); err != nil {
				return err
			}
			t := fromMS(at)
			row(id).LastEvent = &t
			return nil
		}); err != nil {
			return fmt.Errorf("fleet last events: %w", err)
		}
		return eachRow(ctx, tx, `SELECT org_id, COUNT(*), SUM(CASE WHEN status = ?3 THEN 1 ELSE 0 END) FROM tickets
			WHERE status IN (?4, ?5, ?3) AND org_id IN `+scopeClients+` GROUP BY org_id`,
			append(scope, ticket.Escalated, ticket.Open, ticket.InProgress), func(rows *sql.Rows) error {
				var id string
				var open, escalated int
				if err := rows.Scan(&id, &open, &escalated); err != nil {
					return err
				}
				r := row(id)
				r.OpenTickets, r.Escalated = open, escalated
				return nil
			})
	})
	return out, err
}

// eachRow runs a query and hands each row to fn.
func eachRow(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// FleetAlert is an alert with the client it belongs to.
type FleetAlert struct {
	OrgID string
	alerting.Alert
}

// FleetAlerts is one queue of the alerts of every client the scope
// reaches, most recently active first, with the filters of Alerts.
func (s *Store) FleetAlerts(ctx context.Context, sc ClientScope, f alerting.Filter) ([]FleetAlert, int, error) {
	where, args := alertFilter("org_id IN "+scopeClients, []any{sc.ProviderID, sc.UserID}, f)
	return readPage(ctx, s, pageQuery{what: "fleet alerts", args: args,
		count: `SELECT COALESCE(SUM(n), 0) FROM alert_counts WHERE ` + where,
		list:  `SELECT org_id, ` + alertColumns + ` FROM alerts WHERE ` + where + ` ORDER BY last_seen DESC, rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: f.Limit, Offset: f.Offset}, func(rows *sql.Rows) (FleetAlert, error) {
			var org string
			a, err := scanAlert(prefixed{rows, []any{&org}})
			return FleetAlert{OrgID: org, Alert: a}, err
		})
}

// prefixed scans its leading columns into before, the rest as asked.
type prefixed struct {
	row    interface{ Scan(...any) error }
	before []any
}

func (p prefixed) Scan(dest ...any) error { return p.row.Scan(append(p.before, dest...)...) }

// FleetFindings reads the open findings of a CVE in the clients the scope
// reaches (at most limit), by client and host.
func (s *Store) FleetFindings(ctx context.Context, sc ClientScope, cveID string, limit int) ([]Finding, error) {
	return queryAll(ctx, s.reads(), "fleet findings", `SELECT `+findingColumns+` FROM findings f JOIN assets a ON a.id = f.asset_id
		WHERE f.cve_id = ?3 AND f.status = 'open' AND f.org_id IN `+scopeClients+` ORDER BY f.org_id, a.hostname LIMIT ?4`,
		[]any{sc.ProviderID, sc.UserID, cveID, limit}, func(rows *sql.Rows) (Finding, error) { return scanFinding(rows) })
}
