package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"garrison/alerting"
)

// mixedAttackers is the attacker stored on a burst whose events named
// different attackers: it joins no incident, whatever later batches name.
const mixedAttackers = "-"

// linkIncidents puts each alert the batch touched that is in no incident
// yet into the incident of its attacker (alerting.IncidentWindow): the
// incident of the attacker's alert last seen at most that long before,
// else a new one. An alert stays in the incident it first joined, and a
// burst of mixed attackers in none, so an alert known to be settled
// (mem.inIncident) costs nothing here. It returns the alerts it settled,
// for the memory once the batch commits.
func linkIncidents(ctx context.Context, tx *sql.Tx, mem *orgAlertMemory, orgID string, alerts map[string]*alertDelta,
	now time.Time) ([]string, error) {
	fingerprints := make([]string, 0, len(alerts))
	for fp, d := range alerts {
		if (d.attacker != "" || d.mixedAttacker) && !mem.inIncident[d.id] {
			fingerprints = append(fingerprints, fp)
		}
	}
	sort.Strings(fingerprints) // incidents open in the same order on every run
	var linked []string
	// joined is the incident each attacker's alerts of this batch joined,
	// and the newest last_seen it is known to have: the next alert of the
	// attacker within the window joins it without asking the database.
	type joinedIncident struct {
		id   string
		last int64
	}
	joined := map[string]joinedIncident{}
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
		if incident.Valid || attacker.String == mixedAttackers {
			continue
		}
		if d.mixedAttacker {
			if _, err := tx.ExecContext(ctx, `UPDATE alerts SET attacker = ? WHERE id = ? AND org_id = ?`, mixedAttackers, d.id, orgID); err != nil {
				return nil, fmt.Errorf("mark mixed attackers: %w", err)
			}
			continue
		}
		key := d.attacker
		if attacker.Valid {
			key = attacker.String
		}
		since := first - alerting.IncidentWindow.Milliseconds()
		in, ok := joined[key]
		if !ok || in.last < since {
			err := tx.QueryRowContext(ctx, `SELECT incident_id, last_seen FROM alerts WHERE org_id = ? AND attacker = ?
				AND incident_id IS NOT NULL AND last_seen >= ? ORDER BY last_seen DESC LIMIT 1`, orgID, key, since).Scan(&in.id, &in.last)
			switch {
			case err == sql.ErrNoRows:
				in = joinedIncident{id: NewID("inc", now), last: d.last}
				if _, err := tx.ExecContext(ctx, `INSERT INTO incidents (id, org_id, attacker, created_at) VALUES (?, ?, ?, ?)`,
					in.id, orgID, key, ms(now)); err != nil {
					return nil, fmt.Errorf("open incident: %w", err)
				}
			case err != nil:
				return nil, fmt.Errorf("find incident: %w", err)
			}
		}
		in.last = max(in.last, d.last)
		joined[key] = in
		id := in.id
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET attacker = ?, incident_id = ? WHERE id = ? AND org_id = ?`,
			key, id, d.id, orgID); err != nil {
			return nil, fmt.Errorf("join incident: %w", err)
		}
	}
	return linked, nil
}

// maxIncidentAlerts bounds the alerts an incident's detail lists (its
// figures count them all).
const maxIncidentAlerts = 500

// incidentFigures is the select list and joins of an incident with its
// figures, read from its alerts in SQL (an incident may hold thousands).
const incidentFigures = `SELECT i.id, i.attacker, i.created_at, COUNT(*), MAX(a.severity), MIN(a.first_seen), MAX(a.last_seen),
	MAX(CASE WHEN a.status = 'open' THEN 1 ELSE 0 END) FROM incidents i JOIN alerts a ON a.incident_id = i.id AND a.org_id = i.org_id`

func scanIncident(row interface{ Scan(...any) error }) (alerting.Incident, error) {
	var in alerting.Incident
	var created, first, last int64
	var open bool
	err := row.Scan(&in.ID, &in.Attacker, &created, &in.AlertCount, &in.Severity, &first, &last, &open)
	in.CreatedAt, in.FirstSeen, in.LastSeen = fromMS(created), fromMS(first), fromMS(last)
	in.Status = alerting.Resolved
	if open {
		in.Status = alerting.Open
	}
	return in, err
}

// Incidents lists an organization's incidents, most recently active first.
func (s *Store) Incidents(ctx context.Context, orgID string, f alerting.IncidentFilter) ([]alerting.Incident, int, error) {
	having := ""
	switch f.Status {
	case alerting.Open:
		having = ` HAVING MAX(CASE WHEN a.status = 'open' THEN 1 ELSE 0 END) = 1`
	case alerting.Resolved:
		having = ` HAVING MAX(CASE WHEN a.status = 'open' THEN 1 ELSE 0 END) = 0`
	}
	grouped := ` WHERE i.org_id = ? GROUP BY i.id` + having
	list, total, err := readPage(ctx, s, pageQuery{what: "incidents", args: []any{orgID},
		count: `SELECT COUNT(*) FROM (SELECT i.id FROM incidents i JOIN alerts a ON a.incident_id = i.id AND a.org_id = i.org_id` +
			grouped + `) AS sub1`,
		list: incidentFigures + grouped + ` ORDER BY MAX(a.last_seen) DESC, i.rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: f.Limit, Offset: f.Offset}, func(rows *sql.Rows) (alerting.Incident, error) { return scanIncident(rows) })
	if err != nil || len(list) == 0 {
		return list, total, err
	}
	err = s.read(ctx, func(q querier) error { return incidentFacets(ctx, q, orgID, list) })
	return list, total, err
}

// incidentFacets fills the incidents' assets and tactics from their
// alerts' distinct assets, categories and rules.
func incidentFacets(ctx context.Context, q querier, orgID string, list []alerting.Incident) error {
	ids := make([]any, len(list))
	at := make(map[string]*alerting.Incident, len(list))
	for i := range list {
		ids[i], at[list[i].ID] = list[i].ID, &list[i]
		list[i].Assets = []string{}
	}
	in := `IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`
	args := append([]any{orgID}, ids...)
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT incident_id, asset FROM alerts WHERE org_id = ? AND incident_id `+in+
		` ORDER BY incident_id, asset`, args...)
	if err != nil {
		return fmt.Errorf("incidents' assets: %w", err)
	}
	for rows.Next() {
		var id, asset string
		if err := rows.Scan(&id, &asset); err != nil {
			rows.Close()
			return fmt.Errorf("incidents' assets: %w", err)
		}
		at[id].Assets = append(at[id].Assets, asset)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("incidents' assets: %w", err)
	}
	kinds := map[string][]alerting.Alert{} // one stand-in alert per distinct category and rule
	rows, err = q.QueryContext(ctx, `SELECT DISTINCT incident_id, category, COALESCE(rule, '') FROM alerts WHERE org_id = ? AND incident_id `+in, args...)
	if err != nil {
		return fmt.Errorf("incidents' tactics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, rule string
		var a alerting.Alert
		if err := rows.Scan(&id, &a.Category, &rule); err != nil {
			return fmt.Errorf("incidents' tactics: %w", err)
		}
		if rule != "" {
			a.Rule = new(alerting.Rule)
			if err := json.Unmarshal([]byte(rule), a.Rule); err != nil {
				return fmt.Errorf("incident %s's rule: %w", id, err)
			}
		}
		kinds[id] = append(kinds[id], a)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("incidents' tactics: %w", err)
	}
	for id, alerts := range kinds {
		at[id].Tactics = alerting.Tactics(alerts)
	}
	for i := range list {
		if list[i].Tactics == nil {
			list[i].Tactics = []string{}
		}
	}
	return nil
}

// Incident is one of the organization's incidents with its alerts, oldest
// first (the newest maxIncidentAlerts of them when it has more).
func (s *Store) Incident(ctx context.Context, orgID, id string) (alerting.IncidentDetail, error) {
	var d alerting.IncidentDetail
	err := s.read(ctx, func(q querier) error {
		in, err := scanIncident(q.QueryRowContext(ctx, incidentFigures+` WHERE i.id = ? AND i.org_id = ? GROUP BY i.id`, id, orgID))
		if err == sql.ErrNoRows {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("incident: %w", err)
		}
		list := []alerting.Incident{in}
		if err := incidentFacets(ctx, q, orgID, list); err != nil {
			return err
		}
		d.Incident = list[0]
		d.Alerts, err = queryAll(ctx, q, "incident's alerts", `SELECT `+alertColumns+` FROM alerts WHERE org_id = ? AND incident_id = ?
			ORDER BY first_seen DESC, rowid DESC LIMIT ?`, []any{orgID, id, maxIncidentAlerts},
			func(rows *sql.Rows) (alerting.Alert, error) { return scanAlert(rows) })
		slices.Reverse(d.Alerts)
		return err
	})
	return d, err
}
