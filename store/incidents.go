package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"garrison/alerting"
)

// linkIncidents puts each alert the batch touched that is in no incident
// yet into the incident of its attacker (alerting.IncidentWindow): the
// incident of the attacker's alert last seen at most that long before,
// else a new one. An alert stays in the incident it first joined, so an
// alert known to be in one (mem.inIncident) costs nothing here. It returns
// the alerts it linked, for the memory once the batch commits.
func linkIncidents(ctx context.Context, tx *sql.Tx, mem *orgAlertMemory, orgID string, alerts map[string]*alertDelta,
	now time.Time) ([]string, error) {
	fingerprints := make([]string, 0, len(alerts))
	for fp, d := range alerts {
		if d.attacker != "" && !mem.inIncident[d.id] {
			fingerprints = append(fingerprints, fp)
		}
	}
	sort.Strings(fingerprints) // incidents open in the same order on every run
	var linked []string
	for _, fp := range fingerprints {
		d := alerts[fp]
		first := d.first
		if d.taken.n > 0 {
			first = min(first, d.taken.first)
		}
		var incident, attacker sql.NullString
		if d.exists {
			err := tx.QueryRowContext(ctx, `SELECT incident_id, attacker FROM alerts WHERE id = ? AND org_id = ?`, d.id, orgID).
				Scan(&incident, &attacker)
			if err != nil {
				return nil, fmt.Errorf("alert's incident: %w", err)
			}
		}
		linked = append(linked, d.id)
		if incident.Valid {
			continue
		}
		key := d.attacker
		if attacker.Valid {
			key = attacker.String
		}
		var id string
		err := tx.QueryRowContext(ctx, `SELECT incident_id FROM alerts WHERE org_id = ? AND attacker = ? AND incident_id IS NOT NULL
			AND last_seen >= ? ORDER BY last_seen DESC LIMIT 1`, orgID, key, first-alerting.IncidentWindow.Milliseconds()).Scan(&id)
		switch {
		case err == sql.ErrNoRows:
			id = NewID("inc", now)
			if _, err := tx.ExecContext(ctx, `INSERT INTO incidents (id, org_id, attacker, created_at) VALUES (?, ?, ?, ?)`,
				id, orgID, key, ms(now)); err != nil {
				return nil, fmt.Errorf("open incident: %w", err)
			}
		case err != nil:
			return nil, fmt.Errorf("find incident: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET attacker = ?, incident_id = ? WHERE id = ? AND org_id = ?`,
			key, id, d.id, orgID); err != nil {
			return nil, fmt.Errorf("join incident: %w", err)
		}
	}
	return linked, nil
}

// IncidentFilter selects incidents: open ones (one of their alerts open)
// or resolved ones, "" for all; a page of them.
type IncidentFilter struct {
	Status        string
	Limit, Offset int
}

// maxIncidentAlerts bounds the alerts an incident's detail lists (its
// figures count them all).
const maxIncidentAlerts = 500

// Incidents lists an organization's incidents, most recently active first.
func (s *Store) Incidents(ctx context.Context, orgID string, f IncidentFilter) ([]alerting.Incident, int, error) {
	where, args := "i.org_id = ?", []any{orgID}
	switch f.Status {
	case alerting.Open:
		where += ` AND EXISTS (SELECT 1 FROM alerts a WHERE a.incident_id = i.id AND a.org_id = i.org_id AND a.status = 'open')`
	case alerting.Resolved:
		where += ` AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.incident_id = i.id AND a.org_id = i.org_id AND a.status = 'open')`
	}
	list, total, err := readPage(ctx, s, pageQuery{what: "incidents", args: args,
		count: `SELECT COUNT(*) FROM incidents i WHERE ` + where,
		list: `SELECT i.id, i.attacker, i.created_at FROM incidents i WHERE ` + where +
			` ORDER BY (SELECT MAX(a.last_seen) FROM alerts a WHERE a.incident_id = i.id) DESC, i.rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: f.Limit, Offset: f.Offset}, scanIncident)
	if err != nil || len(list) == 0 {
		return list, total, err
	}
	ids := make([]any, len(list))
	for i, in := range list {
		ids[i] = in.ID
	}
	members := map[string][]alerting.Alert{}
	err = s.read(ctx, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT incident_id, `+alertColumns+` FROM alerts WHERE org_id = ? AND incident_id IN (?`+
			strings.Repeat(", ?", len(ids)-1)+`)`, append([]any{orgID}, ids...)...)
		if err != nil {
			return fmt.Errorf("incidents' alerts: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var incident string
			a, err := scanAlert(prefixed{rows, []any{&incident}})
			if err != nil {
				return fmt.Errorf("incidents' alerts: %w", err)
			}
			members[incident] = append(members[incident], a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, 0, err
	}
	for i := range list {
		list[i].Summarize(members[list[i].ID])
	}
	return list, total, nil
}

func scanIncident(rows *sql.Rows) (alerting.Incident, error) {
	var in alerting.Incident
	var created int64
	err := rows.Scan(&in.ID, &in.Attacker, &created)
	in.CreatedAt = fromMS(created)
	return in, err
}

// Incident is one of the organization's incidents with its alerts, oldest
// first (the newest maxIncidentAlerts of them when it has more).
func (s *Store) Incident(ctx context.Context, orgID, id string) (alerting.IncidentDetail, error) {
	var d alerting.IncidentDetail
	err := s.read(ctx, func(q querier) error {
		var created int64
		err := q.QueryRowContext(ctx, `SELECT id, attacker, created_at FROM incidents WHERE id = ? AND org_id = ?`, id, orgID).
			Scan(&d.ID, &d.Attacker, &created)
		if err == sql.ErrNoRows {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("incident: %w", err)
		}
		d.CreatedAt = fromMS(created)
		d.Alerts, err = queryAll(ctx, q, "incident's alerts", `SELECT `+alertColumns+` FROM alerts WHERE org_id = ? AND incident_id = ?
			ORDER BY first_seen, rowid`, []any{orgID, id}, func(rows *sql.Rows) (alerting.Alert, error) { return scanAlert(rows) })
		return err
	})
	if err != nil {
		return d, err
	}
	d.Summarize(d.Alerts)
	if len(d.Alerts) > maxIncidentAlerts {
		d.Alerts = d.Alerts[len(d.Alerts)-maxIncidentAlerts:]
	}
	return d, nil
}
