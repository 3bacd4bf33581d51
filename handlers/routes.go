package handlers

// table is the whole API surface on one screen.
func (a *API) table() []Route {
	return []Route{
		{"GET", "/api/dashboard/health", Public, a.health},
		{"GET", "/api/openapi.json", Public, a.openAPI},

		{"POST", "/api/auth/register", Public, a.register},
		{"POST", "/api/auth/login", Public, a.login},
		{"POST", "/api/auth/logout", Session, a.logout},
		{"POST", "/api/auth/logout-all", Session, a.logoutAll},
		{"POST", "/api/auth/refresh", Session, a.refresh},
		{"GET", "/api/auth/me", Session, a.me},
		{"GET", "/api/user/profile", Session, a.me},
		{"POST", "/api/auth/change-password", Session, a.changePassword},
		{"POST", "/api/auth/reset-request", Public, a.resetRequest},
		{"POST", "/api/auth/reset-password", Public, a.resetRequest},
		{"POST", "/api/auth/reset-confirm", Public, a.resetConfirm},
		{"POST", "/api/auth/verify-email", Public, a.verifyEmail},

		{"GET", "/api/api-keys", Admin, a.listAPIKeys},
		{"POST", "/api/api-keys", Admin, a.createAPIKey},
		{"DELETE", "/api/api-keys/{id}", Admin, a.revokeAPIKey},

		{"GET", "/api/org", Read, a.getOrg},
		{"GET", "/api/org/invites", Admin, a.listInvites},
		{"POST", "/api/org/invites", Admin, a.createInvite},
		{"GET", "/api/org/members", Read, a.listMembers},
		{"PATCH", "/api/org/members/{id}", Admin, a.updateMember},
		{"DELETE", "/api/org/members/{id}", Admin, a.deleteMember},

		{"POST", "/api/events", Write, a.ingestEvents},
		{"GET", "/api/events", Read, a.listEvents},
		{"GET", "/api/dashboard/events", Read, a.listEvents},
		{"POST", "/api/webhooks/{source}", Webhook, a.webhook},
		{"GET", "/api/alerts", Read, a.listAlerts},
		{"GET", "/api/alerts/{id}", Read, a.getAlert},
		{"PATCH", "/api/alerts/{id}", Write, a.updateAlert},
		{"GET", "/api/threats", Read, a.listThreats},
		{"GET", "/api/threats/summary", Read, a.threatSummary},

		{"GET", "/api/dashboard/overview", Read, a.overview},
		{"GET", "/api/dashboard/security-score", Read, a.securityScore},
		{"GET", "/api/dashboard/stats", Read, a.stats},
		{"GET", "/api/dashboard/risk-timeline", Read, a.riskTimeline},
		{"GET", "/api/dashboard/daily-summary", Read, a.dailySummary},
		{"GET", "/api/dashboard/network-health", Read, a.networkHealth},

		{"GET", "/api/agents", Read, a.listAgents},
		{"POST", "/api/agents/run", Write, a.runAgent},
		{"POST", "/api/agents/{id}/execute", Write, a.executeAgent},
		{"GET", "/api/agents/{id}/executions", Read, a.listRuns},
		{"GET", "/api/agents/{id}/executions/{run_id}", Read, a.getRun},
		{"POST", "/api/agents/{id}/executions/{run_id}/cancel", Write, a.cancelRun},

		{"POST", "/api/tickets/submit", Write, a.submitTicket},
		{"GET", "/api/tickets", Read, a.listTickets},
		{"GET", "/api/tickets/{id}", Read, a.getTicket},
		{"PATCH", "/api/tickets/{id}", Write, a.updateTicket},
		{"POST", "/api/tickets/{id}/messages", Write, a.addTicketMessage},
		{"DELETE", "/api/org", Admin, a.deleteOrg},
		{"GET", "/api/audit-log", Admin, a.auditLog},
		{"GET", "/api/notifications", Read, a.listNotifications},
		{"POST", "/api/notifications/{id}/read", Read, a.readNotification},

		{"GET", "/api/compliance", Read, a.complianceOverview},
		{"POST", "/api/compliance/audit", Write, a.startAudit},
		{"GET", "/api/compliance/audits", Read, a.listAudits},
		{"GET", "/api/compliance/audits/{id}", Read, a.getAudit},
		{"GET", "/api/compliance/audits/{id}/download", Read, a.downloadAudit},
		{"PATCH", "/api/compliance/controls/{framework}/{control_id}", Admin, a.attestControl},
		{"GET", "/api/compliance/templates", Read, a.listTemplates},
		{"GET", "/api/compliance/templates/{id}/download", Read, a.downloadTemplate},
		{"POST", "/api/compliance/templates/{id}/adopt", Write, a.adoptTemplate},
		{"POST", "/api/compliance/remediate", Write, a.remediate},

		{"GET", "/api/cve-watchlist", Read, a.listWatch},
		{"POST", "/api/cve-watchlist", Write, a.addWatch},
		{"GET", "/api/cve-watchlist/{id}", Read, a.getWatch},
		{"DELETE", "/api/cve-watchlist/{id}", Write, a.deleteWatch},
		{"GET", "/api/assets", Read, a.listAssets},
		{"POST", "/api/assets", Write, a.putAssets},
		{"GET", "/api/assets/{id}", Read, a.getAsset},
		{"PATCH", "/api/assets/{id}", Write, a.patchAsset},
		{"DELETE", "/api/assets/{id}", Write, a.deleteAsset},
		{"POST", "/api/intel/import", Admin, a.importIntel},
		{"GET", "/api/intel/status", Read, a.intelStatus},

		{"POST", "/api/outreach/prospects", Write, a.importProspects},
		{"GET", "/api/outreach/prospects", Read, a.listProspects},
		{"GET", "/api/outreach/leads", Read, a.listLeads},
		{"GET", "/api/outreach/leads/{id}", Read, a.getLead},
		{"PATCH", "/api/outreach/leads/{id}/status", Write, a.setLeadStatus},
	}
}

// ingestRoutes take the larger body cap: event ingest and bulk imports
// (10,000 prospects).
var ingestRoutes = map[string]bool{"/api/events": true, "/api/webhooks/{source}": true, "/api/outreach/prospects": true}
