package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"garrison/alerting"
	"garrison/event"
)

// Research bounds: the most events one query reads, and returns.
const (
	MaxScannedEvents = 200_000
	MaxMatchedEvents = 10_000
)

// EventsMatching returns, newest first, the organization's events since the
// given time whose asset is term, or whose indicator or message contains it
// (case-insensitively), or whose details hold it: an IP address as a whole
// value (details.src_ip, dest_ip or any other), anything else anywhere in
// them. It reads at most the newest MaxScannedEvents of the period, so one
// research run cannot hold a reader for long; scanned tells how many it
// read.
func (s *Store) EventsMatching(ctx context.Context, orgID, term string, since time.Time) (events []event.Event, scanned int, err error) {
	inDetails := term
	addr, err := netip.ParseAddr(term)
	if err == nil {
		inDetails = `"` + term + `"` // 10.0.0.1 is not 10.0.0.12
		addr = addr.Unmap()
	}
	err = s.read(ctx, func(tx querier) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM events INDEXED BY events_org_ts
			WHERE org = `+orgNum+` AND ts >= ? LIMIT ?) AS sub1`, orgID, ms(since), MaxScannedEvents).Scan(&scanned); err != nil {
			return fmt.Errorf("events matching: %w", err)
		}
		// The newest MaxScannedEvents are searched for the term anywhere;
		// an address is also found through the normalised fields' indexes
		// in the whole period, however many events came since.
		rows, err := tx.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE seq IN (
			SELECT seq FROM (SELECT * FROM events INDEXED BY events_org_ts
				WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND ts >= ?2 ORDER BY ts DESC LIMIT ?4) AS recent
			WHERE asset = ?3 COLLATE NOCASE OR instr(lower(indicator), lower(?3)) > 0 OR instr(lower(message), lower(?3)) > 0
				OR instr(lower(details), lower(?6)) > 0 OR user_name = ?3 COLLATE NOCASE
			UNION SELECT seq FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND src_ip = ?7 AND ts >= ?2
			UNION SELECT seq FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND dst_ip = ?7 AND ts >= ?2)
			ORDER BY ts DESC LIMIT ?5`, orgID, ms(since), term, MaxScannedEvents, MaxMatchedEvents, inDetails, addrColumn(addr))
		if err != nil {
			return fmt.Errorf("events matching: %w", err)
		}
		if events, err = s.eventIDs.scan(rows, orgID); err != nil {
			return fmt.Errorf("events matching: %w", err)
		}
		return nil
	})
	return events, scanned, err
}

// AlertsMatching returns the organization's alerts, most recently active
// first, whose asset is term or whose indicator or title contains it.
func (s *Store) AlertsMatching(ctx context.Context, orgID, term string, limit int) ([]alerting.Alert, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT `+alertColumns+` FROM alerts
		WHERE org_id = ?1 AND (asset = ?2 COLLATE NOCASE OR instr(lower(indicator), lower(?2)) > 0
			OR instr(lower(title), lower(?2)) > 0)
		ORDER BY last_seen DESC LIMIT ?3`, orgID, term, limit)
	if err != nil {
		return nil, fmt.Errorf("alerts matching: %w", err)
	}
	defer rows.Close()
	var out []alerting.Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, fmt.Errorf("alerts matching: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// InventoryHost finds the asset of the organization's inventory whose
// hostname (case-insensitively) or address is term: the organization's own
// host. The inventory is bounded (MaxAssets).
func (s *Store) InventoryHost(ctx context.Context, orgID, term string) (hostname string, ok bool, err error) {
	err = s.reads().QueryRowContext(ctx, `SELECT hostname FROM assets WHERE org_id = ?1 AND (hostname = ?2 COLLATE NOCASE OR ip = ?2)
		ORDER BY hostname LIMIT 1`, orgID, term).Scan(&hostname)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("inventory host: %w", err)
	}
	return hostname, true, nil
}

// DomainQueries is what DNS telemetry says about one domain and its subdomains.
type DomainQueries struct {
	Count    int
	Clients  int
	Category string // the blocklist category, "" when allowed
	First    *time.Time
	Last     *time.Time
}

// DNSQueriesFor summarises the organization's queries for domain and its
// subdomains since the given time (a subdomain ends in "." and the domain:
// counted from the start, as both engines' substr count).
func (s *Store) DNSQueriesFor(ctx context.Context, orgID, domain string, since time.Time) (DomainQueries, error) {
	var d DomainQueries
	var first, last sql.NullInt64
	err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT client), COALESCE(MAX(category), ''), MIN(ts), MAX(ts)
		FROM dns_queries WHERE org_id = ?1 AND ts >= ?2 AND (domain = ?3 OR substr(domain, length(domain) - length(?3)) = '.' || ?3)`,
		orgID, ms(since), domain).Scan(&d.Count, &d.Clients, &d.Category, &first, &last)
	if err != nil {
		return d, fmt.Errorf("dns queries for domain: %w", err)
	}
	d.First, d.Last = optMS(first), optMS(last)
	return d, nil
}

// StaleOpenAlerts counts open high and critical alerts raised before the
// given time: ones nobody has dealt with.
func (s *Store) StaleOpenAlerts(ctx context.Context, orgID string, before time.Time) (int, error) {
	var n int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE org_id = ? AND status = 'open'
		AND severity >= ? AND created_at < ?`, orgID, event.High, ms(before)).Scan(&n); err != nil {
		return 0, fmt.Errorf("stale open alerts: %w", err)
	}
	return n, nil
}
