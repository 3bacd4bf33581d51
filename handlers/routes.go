package handlers

import (
	"garrison/audit"
	"garrison/intel"
)

// table is the whole API surface on one screen: each row is the whole
// description of its route (method, path, who may call it, its handler,
// and any of: the audit action it records, a larger body cap, the
// rate-limit buckets it draws on before its credential is known).
func (a *API) table() []Route {
	return []Route{
		row("GET", "/api/dashboard/health", Public, a.health),
		row("GET", "/api/openapi.json", Public, a.openAPI),

		row("POST", "/api/auth/register", Public, a.register, throttled(RegisterBuckets), audited(audit.Register)),
		row("POST", "/api/auth/login", Public, a.login, throttled(LoginBuckets), audited(audit.Login)),
		row("POST", "/api/auth/logout", Session, a.logout, throttled(AuthBucket), audited(audit.Logout)),
		row("POST", "/api/auth/logout-all", Session, a.logoutAll, throttled(AuthBucket), audited(audit.LogoutAll)),
		row("POST", "/api/auth/refresh", Session, a.refresh, throttled(AuthBucket)),
		row("POST", "/api/auth/reauthenticate", Session, a.reauthenticate, throttled(LoginBuckets), audited(audit.Reauthenticate)),
		// Reading one's own session is no guess: the credential's bucket, not the
		// sign-in buckets (a console page load reads it).
		row("GET", "/api/auth/me", Session, a.me),
		row("POST", "/api/auth/switch-org", Session, a.switchOrg, audited(audit.SwitchOrg)), // a technician switches all day: the session's bucket
		row("GET", "/api/user/profile", Session, a.me),
		row("POST", "/api/auth/change-password", Session, a.changePassword, throttled(AuthBucket), audited(audit.ChangePassword)),
		row("POST", "/api/auth/reset-request", Public, a.resetRequest, throttled(ResetBuckets)),
		row("POST", "/api/auth/reset-password", Public, a.resetRequest, throttled(ResetBuckets)),
		row("POST", "/api/auth/reset-confirm", Public, a.resetConfirm, throttled(AuthBucket), audited(audit.ResetPassword)),
		row("POST", "/api/auth/verify-email", Public, a.verifyEmail, throttled(AuthBucket), audited(audit.VerifyEmail)),

		row("GET", "/api/api-keys", Admin, a.listAPIKeys, params("limit", "offset")),
		row("POST", "/api/api-keys", Admin, a.createAPIKey, audited(audit.KeyCreate)),
		row("DELETE", "/api/api-keys/{id}", Admin, a.revokeAPIKey, audited(audit.KeyRevoke)),

		row("GET", "/api/org", Read, a.getOrg),
		row("GET", "/api/org/invites", Admin, a.listInvites, params("limit", "offset")),
		row("POST", "/api/org/invites", Admin, a.createInvite, audited(audit.OrgInvite)),
		row("GET", "/api/org/members", Read, a.listMembers, params("limit", "offset")),
		row("PATCH", "/api/org/members/{id}", Admin, a.updateMember, audited(audit.MemberUpdate)),
		row("DELETE", "/api/org/members/{id}", Admin, a.deleteMember, audited(audit.MemberRemove)),
		row("GET", "/api/org/members/{id}/clients", Admin, a.getMemberClients),
		row("PUT", "/api/org/members/{id}/clients", Admin, a.setMemberClients, audited(audit.MemberClients)),

		row("GET", "/api/clients", Read, a.listClients, params("limit", "offset", "sort", "grade", "silent", "q")),
		row("POST", "/api/clients", Admin, a.createClient, audited(audit.ClientCreate)),
		row("GET", "/api/clients/alerts", Read, a.clientAlerts, params("limit", "offset", "status", "severity")),
		row("GET", "/api/clients/{id}", Read, a.getClient),
		row("PATCH", "/api/clients/{id}", Admin, a.patchClient, audited(audit.ClientUpdate)),
		row("DELETE", "/api/clients/{id}", Admin, a.deleteClient, audited(audit.ClientDelete)),

		row("POST", "/api/events", Write, a.ingestEvents, bodyCap(MaxIngestBodyBytes), params("partial")),
		row("GET", "/api/events", Read, a.listEvents, params("limit", "offset", "severity", "type", "from", "to", "sort", "order",
			"src_ip", "dst_ip", "asset", "user", "rule", "source", "q")),
		row("GET", "/api/events/export", Read, a.exportEvents, params("format", "severity", "type", "from", "to",
			"src_ip", "dst_ip", "asset", "user", "rule", "source", "q")),
		row("GET", "/api/events/{id}", Read, a.getEvent),
		row("GET", "/api/dashboard/events", Read, a.listEvents, params("limit", "offset", "severity", "type", "from", "to", "sort", "order",
			"src_ip", "dst_ip", "asset", "user", "rule", "source", "q")),
		row("POST", "/api/webhooks/{source}", Webhook, a.webhook, bodyCap(MaxIngestBodyBytes), params("partial")),
		row("GET", "/api/alerts", Read, a.listAlerts, params("limit", "offset", "status", "severity", "src_ip", "dst_ip", "asset", "user", "rule", "source", "q")),
		row("GET", "/api/alerts/{id}", Read, a.getAlert),
		row("PATCH", "/api/alerts", Write, a.updateAlerts, audited(audit.AlertUpdate)),
		row("PATCH", "/api/alerts/{id}", Write, a.updateAlert, audited(audit.AlertUpdate)),
		row("POST", "/api/alerts/{id}/acknowledge", Write, a.acknowledgeAlert, audited(audit.AlertAcknowledge)),
		row("POST", "/api/alerts/{id}/ticket", Write, a.ticketFromAlert, audited(audit.AlertTicket)),
		row("GET", "/api/alert-suppressions", Read, a.listSuppressions, params("limit", "offset")),
		row("POST", "/api/alert-suppressions", Write, a.createSuppression, audited(audit.SuppressionCreate)),
		row("GET", "/api/alert-suppressions/{id}", Read, a.getSuppression),
		row("DELETE", "/api/alert-suppressions/{id}", Write, a.endSuppression, audited(audit.SuppressionEnd)),
		row("GET", "/api/threats", Read, a.listThreats, params("limit", "offset")),
		row("GET", "/api/threats/summary", Read, a.threatSummary),

		row("GET", "/api/dashboard/overview", Read, a.overview),
		row("GET", "/api/dashboard/security-score", Read, a.securityScore),
		row("GET", "/api/dashboard/stats", Read, a.stats),
		row("GET", "/api/dashboard/risk-timeline", Read, a.riskTimeline, params("days")),
		row("GET", "/api/dashboard/daily-summary", Read, a.dailySummary),
		row("GET", "/api/dashboard/network-health", Read, a.networkHealth),

		row("GET", "/api/agents", Read, a.listAgents),
		row("POST", "/api/agents/run", Write, a.runAgent, audited(audit.RunStart)),
		row("POST", "/api/agents/{id}/execute", Write, a.executeAgent, audited(audit.RunStart)),
		row("GET", "/api/agents/{id}/executions", Read, a.listRuns, params("limit", "offset")),
		row("GET", "/api/agents/{id}/executions/{run_id}", Read, a.getRun),
		row("POST", "/api/agents/{id}/executions/{run_id}/cancel", Write, a.cancelRun, audited(audit.RunCancel)),

		row("POST", "/api/tickets/submit", Write, a.submitTicket),
		row("GET", "/api/tickets", Read, a.listTickets, params("limit", "offset", "status")),
		row("GET", "/api/tickets/{id}", Read, a.getTicket),
		row("PATCH", "/api/tickets/{id}", Write, a.updateTicket, audited(audit.TicketUpdate)),
		row("POST", "/api/tickets/{id}/messages", Write, a.addTicketMessage),
		row("DELETE", "/api/org", Admin, a.deleteOrg, audited(audit.OrgDelete)),
		row("GET", "/api/audit-log", Admin, a.auditLog, params("action", "actor", "from", "to", "limit", "offset")),
		row("GET", "/api/notifications", Read, a.listNotifications, params("unread", "limit", "offset")),
		row("GET", "/api/notifications/deliveries", Admin, a.listDeliveries, params("channel_id", "alert_id", "status", "limit", "offset")),
		row("GET", "/api/notification-channels", Admin, a.listChannels),
		row("POST", "/api/notification-channels", Admin, a.createChannel, audited(audit.ChannelCreate)),
		row("GET", "/api/notification-channels/{id}", Admin, a.getChannel),
		row("PATCH", "/api/notification-channels/{id}", Admin, a.updateChannel, audited(audit.ChannelUpdate)),
		row("DELETE", "/api/notification-channels/{id}", Admin, a.deleteChannel, audited(audit.ChannelDelete)),
		row("POST", "/api/notification-channels/{id}/test", Admin, a.testChannel, audited(audit.ChannelTest)),
		row("GET", "/api/notification-rules", Admin, a.listRules),
		row("POST", "/api/notification-rules", Admin, a.createRule, audited(audit.RuleCreate)),
		row("GET", "/api/notification-rules/{id}", Admin, a.getRule),
		row("PUT", "/api/notification-rules/{id}", Admin, a.updateRule, audited(audit.RuleUpdate)),
		row("DELETE", "/api/notification-rules/{id}", Admin, a.deleteRule, audited(audit.RuleDelete)),
		row("POST", "/api/notifications/{id}/read", Read, a.readNotification),

		row("GET", "/api/compliance", Read, a.complianceOverview),
		row("POST", "/api/compliance/audit", Write, a.startAudit, audited(audit.ComplianceAudit)),
		row("GET", "/api/compliance/audits", Read, a.listAudits, params("limit", "offset")),
		row("GET", "/api/compliance/audits/{id}", Read, a.getAudit),
		row("GET", "/api/compliance/audits/{id}/download", Read, a.downloadAudit, params("format")),
		row("PATCH", "/api/compliance/controls/{framework}/{control_id}", Admin, a.attestControl, audited(audit.ComplianceAttest)),
		row("GET", "/api/compliance/templates", Read, a.listTemplates, params("limit", "offset")),
		row("GET", "/api/compliance/templates/{id}/download", Read, a.downloadTemplate, params("format")),
		row("POST", "/api/compliance/templates/{id}/adopt", Write, a.adoptTemplate, audited(audit.PolicyAdopt)),
		row("POST", "/api/compliance/remediate", Write, a.remediate, audited(audit.ComplianceRemediate)),

		row("GET", "/api/cve-watchlist", Read, a.listWatch, params("min_score", "kev", "patch_status", "affected", "sort", "limit", "offset")),
		row("POST", "/api/cve-watchlist", Write, a.addWatch),
		row("GET", "/api/cve-watchlist/{id}", Read, a.getWatch),
		row("DELETE", "/api/cve-watchlist/{id}", Write, a.deleteWatch, audited(audit.WatchRemove)),
		row("GET", "/api/assets", Read, a.listAssets, params("limit", "offset")),
		row("POST", "/api/assets", Write, a.putAssets),
		row("GET", "/api/assets/{id}", Read, a.getAsset),
		row("PATCH", "/api/assets/{id}", Write, a.patchAsset),
		row("DELETE", "/api/assets/{id}", Write, a.deleteAsset, audited(audit.AssetDelete)),
		row("POST", "/api/intel/import", Admin, a.importIntel, bodyCap(intel.MaxImportBytes), audited(audit.IntelImport), params("name")),
		row("GET", "/api/intel/status", Read, a.intelStatus),

		// Bulk imports take the ingest cap: 10,000 prospects are over 1 MiB.
		row("POST", "/api/outreach/prospects", Write, a.importProspects, bodyCap(MaxIngestBodyBytes), audited(audit.ProspectImport)),
		row("GET", "/api/outreach/prospects", Read, a.listProspects, params("limit", "offset")),
		row("GET", "/api/outreach/leads", Read, a.listLeads, params("status", "min_score", "vertical", "region", "q", "sort", "limit", "offset")),
		row("GET", "/api/outreach/leads/{id}", Read, a.getLead),
		row("PATCH", "/api/outreach/leads/{id}/status", Write, a.setLeadStatus, audited(audit.LeadStatus)),
		row("POST", "/api/outreach/leads/{id}/convert", Admin, a.convertLead, audited(audit.LeadConvert)),
	}
}
