package compliance

import (
	"context"
	"fmt"
	"time"

	"garrison/blocklist"
	"garrison/credential"
	"garrison/event"
	"garrison/intel"
	"garrison/store"
)

// Settings are the server's own configuration that checks evidence: how
// Garrison itself protects the organization's accounts and traffic.
type Settings struct {
	PasswordMinLength int
	PasswordHash      string // e.g. "PBKDF2-HMAC-SHA256, 600000 iterations"
	SessionTTL        time.Duration
	HTTPSOnly         bool   // plain HTTP only redirects
	TLSMinVersion     string // e.g. "1.2"
	// EventRetention is how long events are kept; 0 keeps them for good.
	EventRetention time.Duration
	// BlocklistDomains is how many domains the DNS blocklist holds.
	BlocklistDomains int
	// CVEWatchlist says whether the CVE watchlist exists in this release.
	CVEWatchlist bool
}

// SLAs of the checks.
const (
	criticalAlertSLA = 24 * time.Hour
	highAlertSLA     = 72 * time.Hour
	incidentSLA      = 72 * time.Hour
	sourceSilence    = 24 * time.Hour
	dnsWindow        = 7 * 24 * time.Hour
	reviewWindow     = 30 * 24 * time.Hour
	reviewDue        = 7 * 24 * time.Hour
	minLogRetention  = 90 * 24 * time.Hour
)

// Facts are what the checks read: one snapshot of the organization's
// Garrison data, taken when the audit runs.
type Facts struct {
	Now            time.Time
	Settings       Settings
	Users          []store.User
	Keys           []store.APIKey // active: neither revoked nor expired
	OverdueAlerts  store.Overdue
	OverdueTickets store.Overdue
	Sources        []store.Source
	DNS            map[string]int // queries in the last 7 days by blocklist category ("" = allowed)
	ResolvedAlerts int            // alerts resolved in the last 30 days
	OpenAlerts     event.Counts
	OldestOpen     *time.Time // when the oldest open alert was raised
	Adopted        map[string]store.PolicyAdoption
	Attestations   map[string]store.Attestation // by store.GapKey
	Exposure       []intel.ExposureItem         // the CVE watchlist with affected asset counts
}

// gather reads the facts of an organization as of now.
func (e *Engine) gather(ctx context.Context, orgID string) (*Facts, error) {
	now := e.now()
	f := &Facts{Now: now, Settings: e.settings}
	var err error
	if f.Users, _, err = e.store.Members(ctx, orgID, store.Page{Limit: 10000}); err != nil {
		return nil, err
	}
	if f.Keys, err = e.store.ActiveAPIKeys(ctx, orgID, now); err != nil {
		return nil, err
	}
	if f.OverdueAlerts, err = e.store.OverdueAlerts(ctx, orgID, map[event.Severity]time.Time{
		event.Critical: now.Add(-criticalAlertSLA), event.High: now.Add(-highAlertSLA)}); err != nil {
		return nil, err
	}
	if f.OverdueTickets, err = e.store.OverdueIncidentTickets(ctx, orgID, now.Add(-incidentSLA)); err != nil {
		return nil, err
	}
	if f.Sources, err = e.store.Sources(ctx, orgID); err != nil {
		return nil, err
	}
	if f.DNS, err = e.store.DNSTotals(ctx, orgID, now.Add(-dnsWindow)); err != nil {
		return nil, err
	}
	if _, f.ResolvedAlerts, err = e.store.AlertsChangedSince(ctx, orgID, now.Add(-reviewWindow)); err != nil {
		return nil, err
	}
	if f.OpenAlerts, err = e.store.OpenAlertCounts(ctx, orgID); err != nil {
		return nil, err
	}
	if f.OldestOpen, err = e.store.OldestOpenAlert(ctx, orgID); err != nil {
		return nil, err
	}
	if f.Adopted, err = e.store.PolicyAdoptions(ctx, orgID); err != nil {
		return nil, err
	}
	if f.Attestations, err = e.store.Attestations(ctx, orgID); err != nil {
		return nil, err
	}
	if f.Exposure, err = intel.Exposure(ctx, e.store, orgID); err != nil {
		return nil, err
	}
	return f, nil
}

// ServerSettings describes how a Garrison server with these options
// protects accounts and traffic: its password rules, session lifetime,
// TLS-only listener (root main's; plain HTTP only redirects) and DNS
// blocklist.
func ServerSettings(sessionTTL time.Duration, passwordIterations int, blocked *blocklist.List, eventRetention time.Duration) Settings {
	return Settings{
		PasswordMinLength: credential.MinPasswordLen,
		PasswordHash:      fmt.Sprintf("PBKDF2-HMAC-SHA256 with %d iterations and a per-password salt", passwordIterations),
		SessionTTL:        sessionTTL,
		HTTPSOnly:         true,
		TLSMinVersion:     "1.2",
		BlocklistDomains:  blocked.Len(),
		CVEWatchlist:      true,
		EventRetention:    eventRetention,
	}
}
