// Package audit is the audit log: the actions it names, the one path an
// entry takes into it (from the API and the admin CLI alike), and reading
// it with its filters judged.
package audit

import (
	"context"
	"fmt"
	"slices"
	"time"

	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// The actions the audit log holds (docs/api.md lists them).
const (
	Register       = "auth.register"
	Login          = "auth.login"
	LoginFailed    = "auth.login_failed" // a sign-in refused for a known account
	AccessDenied   = "access.denied"     // an admin route or audited change refused (403)
	Logout         = "auth.logout"
	LogoutAll      = "auth.logout_all"
	ChangePassword = "auth.change_password"
	ResetPassword  = "auth.reset_password"
	VerifyEmail    = "auth.verify_email"
	Reauthenticate = "auth.reauthenticate" // a password confirmed again, for an action that needs it

	KeyCreate    = "api_key.create"
	KeyRevoke    = "api_key.revoke"
	OrgInvite    = "org.invite"
	MemberUpdate = "org.member_update"
	MemberRemove = "org.member_remove"
	OrgDelete    = "org.delete"
	OrgPlan      = "org.plan"      // garrison org set-plan
	OrgQuota     = "org.quota"     // garrison org set-quota
	OrgRetention = "org.retention" // garrison org set-retention

	AlertUpdate         = "alert.update"
	AlertAcknowledge    = "alert.acknowledge"
	AlertTicket         = "alert.ticket"
	SuppressionCreate   = "alert_suppression.create"
	SuppressionEnd      = "alert_suppression.end"
	TicketUpdate        = "ticket.update"
	RunStart            = "agent_run.start"
	RunCancel           = "agent_run.cancel"
	ComplianceAudit     = "compliance.audit"
	ComplianceAttest    = "compliance.attest"
	ComplianceRemediate = "compliance.remediate"
	PolicyAdopt         = "compliance.policy_adopt"
	IntelImport         = "intel.import"
	AssetDelete         = "asset.delete"
	WatchRemove         = "watchlist.remove"
	FindingStatus       = "finding.status"
	AssetImport         = "asset.import"
	ProspectImport      = "outreach.import"
	LeadStatus          = "lead.status"
	OrgCreate           = "org.create" // garrison org create

	SwitchOrg     = "auth.switch_org"
	ClientCreate  = "client.create"
	ClientUpdate  = "client.update"
	ClientDelete  = "client.delete"
	MemberClients = "org.member_clients"
	LeadConvert   = "lead.convert"

	ChannelCreate = "notification_channel.create"
	ChannelUpdate = "notification_channel.update"
	ChannelDelete = "notification_channel.delete"
	ChannelTest   = "notification_channel.test"
	RuleCreate    = "notification_rule.create"
	RuleUpdate    = "notification_rule.update"
	RuleDelete    = "notification_rule.delete"

	DetectionSet        = "detection.set"
	DetectionRule       = "detection.rule"
	DetectionRuleCreate = "detection.rule_create"
	DetectionRuleDelete = "detection.rule_delete"
)

// Actions lists every action, for the log's filter and its documentation.
var Actions = []string{Register, Login, LoginFailed, AccessDenied, Logout, LogoutAll, ChangePassword, ResetPassword, VerifyEmail, Reauthenticate,
	KeyCreate, KeyRevoke, OrgInvite, MemberUpdate, MemberRemove, OrgDelete, OrgPlan, OrgQuota, OrgRetention,
	AlertUpdate, AlertAcknowledge, TicketUpdate, RunStart, RunCancel, ComplianceAudit, ComplianceAttest, ComplianceRemediate, PolicyAdopt, IntelImport, AssetDelete, WatchRemove, ProspectImport, LeadStatus, OrgCreate,
	SwitchOrg, ClientCreate, ClientUpdate, ClientDelete, MemberClients, LeadConvert,
	ChannelCreate, ChannelUpdate, ChannelDelete, ChannelTest, RuleCreate, RuleUpdate, RuleDelete, AlertTicket,
	SuppressionCreate, SuppressionEnd, DetectionSet, DetectionRule, DetectionRuleCreate, DetectionRuleDelete, FindingStatus, AssetImport}

// writeTimeout bounds writing an entry after its request or command ended.
const writeTimeout = 10 * time.Second

// Record writes an entry. It is written after the change it records
// committed, even when ctx's request or command is ending: the log says
// what happened. An action a provider's staff or key took in a client
// (e.Via) goes on both logs, naming the provider in the client's
// ("provider", "provider_name") and the client in the provider's
// ("client", "client_name"): the client's admins see who of their
// provider acted, and the provider sees what its staff did.
func Record(ctx context.Context, st *store.Store, e store.AuditEntry) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if e.Via == "" || e.Via == e.OrgID {
		return st.AppendAudit(ctx, e)
	}
	provider, err := st.Org(ctx, e.Via)
	if err != nil {
		return fmt.Errorf("audit: the acting provider: %w", err)
	}
	client, err := st.Org(ctx, e.OrgID)
	if err != nil {
		return fmt.Errorf("audit: the client acted in: %w", err)
	}
	inClient := e
	inClient.Detail = withDetail(e.Detail, "provider", provider.ID, "provider_name", provider.Name)
	if err := st.AppendAudit(ctx, inClient); err != nil {
		return err
	}
	inProvider := e
	inProvider.OrgID = provider.ID
	inProvider.Detail = withDetail(e.Detail, "client", client.ID, "client_name", client.Name)
	return st.AppendAudit(ctx, inProvider)
}

// withDetail is a copy of detail with the key/value pairs added.
func withDetail(detail map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(detail)+len(kv)/2)
	for k, v := range detail {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// SystemActor names Garrison itself in the log, for a change no caller
// asked of the organization (an address its unconfirmed member held was
// confirmed by its owner).
const SystemActor = "system"

// CLIActor names the operator at the appliance's shell in the log.
func CLIActor(user string) string { return "cli:" + user }

// maxActor bounds the actor filter: a user or API key id.
const maxActor = 64

// Query is the log's filters as given; empty ones filter nothing.
type Query struct {
	Action, Actor string
	From, To      string // RFC 3339
}

// List is a page of the organization's entries, newest first, after judging
// the filters: an action the log holds, an actor of at most maxActor
// characters, a time range.
func List(ctx context.Context, st *store.Store, orgID string, q Query, p store.Page) ([]store.AuditEntry, int, error) {
	var problems valid.Problems
	problems.Check(q.Action == "" || slices.Contains(Actions, q.Action), "action", "must be one of the audit log's actions, such as auth.login or api_key.create")
	problems.Check(len(q.Actor) <= maxActor, "actor", fmt.Sprintf("must be at most %d characters: a user or API key id", maxActor))
	f := store.AuditQuery{Action: q.Action, Actor: q.Actor}
	f.From, f.To = timestamp.ParseRange(&problems, q.From, q.To)
	if err := problems.Err(); err != nil {
		return nil, 0, err
	}
	return st.AuditLog(ctx, orgID, f, p)
}
