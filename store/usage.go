package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"garrison/fault"
)

// What a stored event or DNS query counts against its organization's
// storage quota: its texts, and what its numbers, ids and index entries
// take, counted as a constant overhead. The SQL and Go sums agree (a test
// keeps them equal): ingest charges in Go, retention frees in SQL.
const (
	eventOverhead = 100
	dnsOverhead   = 60
)

const eventBytesSQL = `(100 + octet_length(type) + octet_length(source) + octet_length(asset) + octet_length(message)
	+ octet_length(indicator) + COALESCE(octet_length(details), 0)
	+ COALESCE(octet_length(src_ip), 0) + COALESCE(octet_length(dst_ip), 0) + COALESCE(octet_length(user_name), 0)
	+ COALESCE(octet_length(process), 0) + COALESCE(octet_length(command_line), 0) + COALESCE(octet_length(host), 0)
	+ COALESCE(octet_length(rule), 0) + COALESCE(octet_length(action), 0)
	+ COALESCE((SELECT octet_length(o.original) FROM event_originals o WHERE o.seq = events.seq), 0))`

const dnsBytesSQL = `(60 + octet_length(source) + octet_length(client) + octet_length(domain) + octet_length(qtype)
	+ octet_length(rcode) + octet_length(category))`

func eventBytes(e NewEvent) int64 {
	f := e.Fields
	n := eventOverhead + len(e.Type) + len(e.Source) + len(e.Asset) + len(e.Message) + len(e.Indicator) + len(e.Details) +
		len(f.User) + len(f.Process) + len(f.CommandLine) + len(f.Host) + len(f.Rule) + len(f.Action) + len(e.Original)
	for _, a := range [2]bool{f.SrcIP.IsValid(), f.DstIP.IsValid()} {
		if a {
			n += 16
		}
	}
	return int64(n)
}

func dnsBytes(q DNSQuery) int64 {
	return int64(dnsOverhead + len(q.Source) + len(q.Client) + len(q.Domain) + len(q.QType) + len(q.RCode) + len(q.Category))
}

// defaultQuota is the quota of an organization that has none of its own.
func (s *Store) defaultQuota(orgBytes int64) int64 {
	if s.quota == nil {
		return math.MaxInt64
	}
	return s.quota(orgBytes)
}

// Usage is the bytes an organization's events and DNS telemetry take, and
// its quota.
type Usage struct {
	Bytes    int64
	Quota    int64 // bytes; the appliance's default unless set
	QuotaSet bool  // the organization has a quota of its own
	WarnedAt *int64
}

// Full is how far the quota is used, 0 to 1 (and past it).
func (u Usage) Full() float64 {
	if u.Quota <= 0 {
		return 0
	}
	return float64(u.Bytes) / float64(u.Quota)
}

// ErrStorageQuota: the organization's events and DNS telemetry would pass
// its storage quota.
var ErrStorageQuota = fault.New(fault.QuotaExceeded,
	"The organization's storage quota is full: nothing was stored. Ask the appliance's operator for a larger quota "+
		"(garrison org set-quota); events make room as the retention prunes them")

// usage reads an organization's usage in a transaction.
func (s *Store) usage(ctx context.Context, q querier, orgID string) (Usage, error) {
	var u Usage
	var quota, warned sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(u.stored_bytes, 0), o.storage_quota, u.warned_at FROM orgs o
		LEFT JOIN org_usage u ON u.org_id = o.id WHERE o.id = ?`, orgID).Scan(&u.Bytes, &quota, &warned)
	if errors.Is(err, sql.ErrNoRows) {
		return u, ErrNotFound
	}
	if err != nil {
		return u, fmt.Errorf("storage usage: %w", err)
	}
	u.Quota, u.QuotaSet = s.defaultQuota(u.Bytes), quota.Valid
	if quota.Valid {
		u.Quota = quota.Int64
	}
	if warned.Valid {
		u.WarnedAt = &warned.Int64
	}
	return u, nil
}

// Usage is what an organization stores against its quota.
func (s *Store) Usage(ctx context.Context, orgID string) (Usage, error) {
	return s.usage(ctx, s.reads(), orgID)
}

// addUsage counts bytes (negative: freed) to an organization.
func addUsage(ctx context.Context, tx *sql.Tx, orgID string, bytes int64) error {
	if bytes == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO org_usage (org_id, stored_bytes) VALUES (?, MAX(0, ?))
		ON CONFLICT (org_id) DO UPDATE SET stored_bytes = MAX(0, org_usage.stored_bytes + ?)`, orgID, bytes, bytes); err != nil {
		return fmt.Errorf("storage usage: %w", err)
	}
	return nil
}

// freeUsage counts pruned bytes off an organization, and forgets that its
// admins were warned once it is back under rearmAt of its quota.
func (s *Store) freeUsage(ctx context.Context, tx *sql.Tx, orgID string, bytes int64) error {
	if err := addUsage(ctx, tx, orgID, -bytes); err != nil {
		return err
	}
	u, err := s.usage(ctx, tx, orgID)
	if err != nil || u.WarnedAt == nil || u.Full() >= rearmAt {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE org_usage SET warned_at = NULL WHERE org_id = ?`, orgID)
	return err
}

// rearmAt is the share of its quota an organization falls back under
// before it is warned again.
const rearmAt = 0.7

// SetStorageQuota sets an organization's quota in bytes (0: back to the
// appliance's default).
func (s *Store) SetStorageQuota(ctx context.Context, orgID string, bytes int64) error {
	var quota any
	if bytes > 0 {
		quota = bytes
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE orgs SET storage_quota = ? WHERE id = ?`, quota, orgID)
		return expectOne(r, err, "set storage quota")
	})
}

// WarnStorage queues, in one transaction, the mails telling an
// organization's admins its storage passed warnAt of its quota, once until
// it falls back under: it reports whether it did.
func (s *Store) WarnStorage(ctx context.Context, orgID string, warnAt float64, mails func(u Usage, admins []string) []Mail) (bool, error) {
	warned := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		warned = false // a write run again (PostgreSQL) starts over
		u, err := s.usage(ctx, tx, orgID)
		if err != nil || u.WarnedAt != nil || u.Full() < warnAt {
			return err
		}
		admins, err := queryAll(ctx, tx, "admins", adminAddressesSQL, []any{orgID},
			func(rows *sql.Rows) (string, error) {
				var e string
				return e, rows.Scan(&e)
			})
		if err != nil {
			return err
		}
		for _, m := range mails(u, admins) {
			if err := queueMail(ctx, tx, m, s.now()); err != nil {
				return err
			}
		}
		warned = true
		_, err = tx.ExecContext(ctx, `UPDATE org_usage SET warned_at = ? WHERE org_id = ?`, ms(s.now()), orgID)
		return err
	})
	return warned, err
}

// chargeUsage counts a batch's events and DNS queries to their
// organization, or refuses the batch when they would pass its quota.
func (s *Store) chargeUsage(ctx context.Context, tx *sql.Tx, orgID string, events []NewEvent, dns []DNSQuery) error {
	var add int64
	for _, e := range events {
		add += eventBytes(e)
	}
	for _, q := range dns {
		add += dnsBytes(q)
	}
	if add == 0 {
		return nil
	}
	u, err := s.usage(ctx, tx, orgID)
	if err != nil {
		return err
	}
	if u.Bytes+add > u.Quota {
		return ErrStorageQuota
	}
	return addUsage(ctx, tx, orgID, add)
}
