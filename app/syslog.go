package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"garrison/actor"
	"garrison/fault"
	"garrison/ingest"
	"garrison/syslogd"
)

// Syslog counts, by outcome.
const (
	syslogName = "garrison_syslog_messages_total"
	syslogHelp = "Syslog messages received by --syslog-addr and --syslog-tls-addr, by outcome: stored, rejected (a line " +
		"that is not syslog, or older than the retention), unrouted (no route names its network), refused (its route's key " +
		"is revoked, expired or not of write scope), failed (storing failed, or a frame past 64 KiB)."
)

// errSyslogScope refuses a route whose key may not write.
var errSyslogScope = errors.New("the route's API key is not of write or admin scope")

// SyslogReceiver listens for devices' syslog, delivering it through the
// same path as POST /api/webhooks/syslog?partial=true, as the route's key.
func (a *App) SyslogReceiver(addr, tlsAddr string, tlsConfig *tls.Config, routes []syslogd.Route) (*syslogd.Receiver, error) {
	if a.Metrics != nil {
		a.Metrics.Declare(syslogName, syslogHelp, [][]string{{"outcome", "stored"}, {"outcome", "rejected"}, {"outcome", "unrouted"},
			{"outcome", "refused"}, {"outcome", "failed"}}...)
	}
	r, err := syslogd.New(syslogd.Config{Addr: addr, TLSAddr: tlsAddr, TLS: tlsConfig, Routes: routes, Log: a.log,
		Authorize: func(ctx context.Context, key, org string) (string, error) {
			c, err := a.Accounts.Authenticate(ctx, key, org)
			if err != nil {
				return "", err
			}
			if c.Kind != actor.Key || (c.Scope != actor.ScopeWrite && c.Scope != actor.ScopeAdmin) {
				return "", errSyslogScope
			}
			return c.OrgID, nil
		},
		Deliver: func(ctx context.Context, orgID string, lines []byte) (int, int, error) {
			got, err := a.API.Ingest.Ingest(ctx, orgID, ingest.KindSyslog, lines, true)
			return len(got.IDs), len(got.Rejected), err
		},
		// A full disk or a busy database passes: keep the messages.
		Retry: func(err error) bool { return fault.Has(err, fault.Unavailable) },
		Count: func(outcome string, n int) {
			if a.Metrics != nil && n > 0 {
				a.Metrics.Add(syslogName, syslogHelp, float64(n), "outcome", outcome)
			}
		}})
	if err != nil {
		return nil, fmt.Errorf("syslog listener: %w", err)
	}
	return r, nil
}
