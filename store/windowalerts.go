package store

import (
	"context"
	"database/sql"
	"strconv"

	"garrison/alerting"
	"garrison/event"
)

// windowAlertsQuery reads the burst windows of an organization's window
// starts, a JSON array.
const windowAlertsQuery = `SELECT asset, type, window, alert_id, upto_seq FROM alert_windows INDEXED BY alert_windows_org_window
	WHERE org_id = ? AND window IN (SELECT value FROM json_each(?))`

// windowAlerts gives each lower-severity event without an alert of its
// own the burst alert that took its window in, if one did: the alert's
// window row holds the last seq it took (alert_windows). The windows of a
// page are read at once, through their organization and start, instead
// of a lookup per row (a quarter of a page's time at a million events).
func windowAlerts(ctx context.Context, q querier, orgID string, events []event.Event, seqs []int64) error {
	type key struct {
		asset, typ string
		window     int64
	}
	list := []byte{'['}
	seen := map[int64]bool{}
	for _, e := range events {
		if e.AlertID != "" || e.Severity >= event.High {
			continue
		}
		w := ms(alerting.Window(e.Timestamp))
		if seen[w] {
			continue
		}
		if seen[w] = true; len(list) > 1 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, w, 10)
	}
	if len(seen) == 0 {
		return nil
	}
	type taken struct {
		alert string
		upto  int64
	}
	windows, err := queryAll(ctx, q, "burst windows", windowAlertsQuery, []any{orgID, string(append(list, ']'))},
		func(rows *sql.Rows) (struct {
			k key
			t taken
		}, error) {
			var r struct {
				k key
				t taken
			}
			return r, rows.Scan(&r.k.asset, &r.k.typ, &r.k.window, &r.t.alert, &r.t.upto)
		})
	if err != nil || len(windows) == 0 {
		return err
	}
	byKey := make(map[key]taken, len(windows))
	for _, w := range windows {
		byKey[w.k] = w.t
	}
	for i := range events {
		e := &events[i]
		if e.AlertID != "" || e.Severity >= event.High {
			continue
		}
		if t, ok := byKey[key{e.Asset, e.Type, ms(alerting.Window(e.Timestamp))}]; ok && seqs[i] <= t.upto {
			e.AlertID = t.alert
		}
	}
	return nil
}
