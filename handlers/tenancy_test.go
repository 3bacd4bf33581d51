package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// fleet is a provider (Acme MSP) with two clients, their people and keys,
// and an unrelated provider with a client of its own.
type fleet struct {
	e                       *env
	ann                     apitest.Account // Acme MSP's admin
	tess, tom               apitest.Account // technicians: every client; only dental
	pam                     apitest.Account // Acme MSP's member (sales)
	cal, cam                apitest.Account // Dental One's admin and member
	cid                     apitest.Account // Law Two's admin
	quinn                   apitest.Account // the other provider's admin
	provider, dental, law   string
	other, otherClient      string
	providerKey, dentalKey  string
	dentalAlert, otherAlert string
}

// createClient makes a client of the admin's organization, inviting
// adminEmail as its admin, and returns its id and the invitation's token.
func createClient(t *testing.T, e *env, admin apitest.Account, name, adminEmail string) (string, string) {
	t.Helper()
	body := map[string]any{"name": name}
	if adminEmail != "" {
		body["admin_email"] = adminEmail
	}
	r := e.Do("POST", "/api/clients", admin.Token, body).Must(t, http.StatusCreated)
	if r.Str("data", "kind") != "client" {
		t.Fatalf("created %s", r.Raw)
	}
	return r.Str("data", "id"), r.Str("data", "admin_invite", "token")
}

// accept registers an invited address with the invitation's token.
func accept(t *testing.T, e *env, email, token string) apitest.Account {
	t.Helper()
	r := e.Do("POST", "/api/auth/register", "", map[string]any{"email": email, "password": apitest.Password, "name": "Invitee",
		"invite_token": token}).Must(t, http.StatusCreated)
	return apitest.Account{Token: r.Str("token"), ID: r.Str("user", "id"), OrgID: r.Str("user", "org_id"), Email: email}
}

// inOrg sends a request acting in org (X-Garrison-Org).
func inOrg(e *env, method, path, cred, org string, body any) apitest.Response {
	return e.DoHeaders(method, path, body, map[string]string{"Authorization": apitest.Bearer(cred), "X-Garrison-Org": org})
}

func criticalEvent(asset string) map[string]string {
	return map[string]string{"type": "threat_detected", "severity": "critical", "timestamp": "2026-11-21T11:00:00Z",
		"source": "ids", "asset": asset, "message": "ransomware beacon"}
}

func newFleet(t *testing.T) *fleet {
	e := newEnv(t)
	f := &fleet{e: e}
	f.ann = e.Register("ann@acme-msp.test", "Acme MSP")
	e.Verify(f.ann)
	f.provider = f.ann.OrgID
	var tok string
	f.dental, tok = createClient(t, e, f.ann, "Dental One", "cal@dental.test")
	f.cal = accept(t, e, "cal@dental.test", tok)
	e.Verify(f.cal)
	f.cam = e.Member(f.cal, "cam@dental.test", "member")
	f.law, tok = createClient(t, e, f.ann, "Law Two", "cid@law.test")
	f.cid = accept(t, e, "cid@law.test", tok)
	f.tess = e.Member(f.ann, "tess@acme-msp.test", "technician")
	f.tom = e.Member(f.ann, "tom@acme-msp.test", "technician")
	f.pam = e.Member(f.ann, "pam@acme-msp.test", "member")
	e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{f.dental}}).Must(t, http.StatusOK)

	f.quinn = e.Register("quinn@other-msp.test", "Other MSP")
	e.Verify(f.quinn)
	f.other = f.quinn.OrgID
	f.otherClient, _ = createClient(t, e, f.quinn, "Other Client", "")

	f.providerKey = e.APIKey(f.ann, "admin")
	f.dentalKey = e.APIKey(f.cal, "admin")
	inOrg(e, "POST", "/api/events", f.providerKey, f.dental, criticalEvent("dental-ws-1")).Must(t, http.StatusCreated)
	otherKey := e.APIKey(f.quinn, "admin")
	inOrg(e, "POST", "/api/events", otherKey, f.otherClient, criticalEvent("other-ws-1")).Must(t, http.StatusCreated)
	f.dentalAlert = inOrg(e, "GET", "/api/alerts", f.providerKey, f.dental, nil).Must(t, http.StatusOK).Get("data").At(0).Get("id").Str()
	f.otherAlert = inOrg(e, "GET", "/api/alerts", otherKey, f.otherClient, nil).Must(t, http.StatusOK).Get("data").At(0).Get("id").Str()
	if f.dentalAlert == "" || f.otherAlert == "" {
		t.Fatal("the critical events raised no alerts")
	}
	return f
}

func TestProviderAndClients(t *testing.T) {
	f := newFleet(t)
	e := f.e

	// The provider became one with its first client; the client's people
	// see their organization only.
	if k := e.Do("GET", "/api/org", f.ann.Token, nil).Must(t, http.StatusOK).Str("data", "kind"); k != "provider" {
		t.Fatalf("the provider is %s", k)
	}
	cal := e.Do("GET", "/api/auth/me", f.cal.Token, nil).Must(t, http.StatusOK)
	if cal.Str("data", "org_id") != f.dental || cal.Get("data", "memberships").Len() != 1 || cal.Get("data", "clients").Len() != 0 {
		t.Fatalf("the client's admin: %s", cal.Raw)
	}
	e.Do("GET", "/api/clients", f.cal.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")
	e.Do("GET", "/api/clients", f.dentalKey, nil).WantError(t, http.StatusForbidden, "forbidden", "")
	e.Do("POST", "/api/auth/switch-org", f.cal.Token, map[string]string{"org_id": f.provider}).
		WantError(t, http.StatusNotFound, "not_found", "Organization not found")

	// The provider's admin reaches both clients and acts in one at a time.
	me := e.Do("GET", "/api/auth/me", f.ann.Token, nil).Must(t, http.StatusOK)
	if got := me.Get("data", "clients").Len(); got != 2 {
		t.Fatalf("the provider's admin reaches %d clients: %s", got, me.Raw)
	}
	sw := e.Do("POST", "/api/auth/switch-org", f.ann.Token, map[string]string{"org_id": f.dental}).Must(t, http.StatusOK)
	inDental := sw.Str("token")
	org := e.Do("GET", "/api/org", inDental, nil).Must(t, http.StatusOK)
	if org.Str("data", "id") != f.dental || org.Str("data", "name") != "Dental One" {
		t.Fatalf("acting in %s", org.Raw)
	}
	if al := e.Do("GET", "/api/alerts", inDental, nil).Must(t, http.StatusOK); al.Get("data").Len() != 1 || al.Str("data", "0", "id") != f.dentalAlert {
		t.Fatalf("the client's alerts: %s", al.Raw)
	}
	e.Do("GET", "/api/alerts/"+f.otherAlert, inDental, nil).WantError(t, http.StatusNotFound, "not_found", "")
	e.Do("PATCH", "/api/alerts/"+f.otherAlert, inDental, map[string]any{"status": "resolved", "disposition": "benign", "note": "not ours"}).
		WantError(t, http.StatusNotFound, "not_found", "")

	// Acting in the client is on its log, naming the person and provider,
	// and on the provider's, naming the client.
	e.Do("PATCH", "/api/alerts/"+f.dentalAlert, inDental, map[string]any{"status": "resolved", "disposition": "true_positive", "note": "reimaged"}).Must(t, http.StatusOK)
	entry := findAudit(t, e, f.cal.Token, "alert.update")
	if entry.Get("actor").Str() != f.ann.ID || entry.Get("detail", "provider").Str() != f.provider || entry.Get("detail", "provider_name").Str() != "Acme MSP" ||
		entry.Get("detail", "actor_name").Str() == "" {
		t.Fatalf("the client's log: %s", entry)
	}
	entry = findAudit(t, e, f.ann.Token, "alert.update")
	if entry.Get("detail", "client").Str() != f.dental || entry.Get("detail", "client_name").Str() != "Dental One" {
		t.Fatalf("the provider's log: %s", entry)
	}

	// Rename, then offboard a client: confirmed by its name.
	e.Do("PATCH", "/api/clients/"+f.law, f.ann.Token, map[string]string{"name": "Law Two LLP"}).Must(t, http.StatusOK)
	e.Do("PATCH", "/api/clients/"+f.law, f.ann.Token, map[string]string{"name": ""}).WantFields(t, "name")
	e.Do("DELETE", "/api/org", f.ann.Token, map[string]string{"confirm": "Acme MSP"}).WantError(t, http.StatusConflict, "conflict", "")
	e.Do("DELETE", "/api/clients/"+f.law, f.ann.Token, map[string]string{"confirm": "Law Two"}).WantFields(t, "confirm")
	e.Do("DELETE", "/api/clients/"+f.law, f.tess.Token, map[string]string{"confirm": "Law Two LLP"}).WantError(t, http.StatusForbidden, "forbidden", "")
	e.Do("DELETE", "/api/clients/"+f.otherClient, f.ann.Token, map[string]string{"confirm": "Other Client"}).WantError(t, http.StatusNotFound, "not_found", "")
	e.Do("DELETE", "/api/clients/"+f.law, f.ann.Token, map[string]string{"confirm": "Law Two LLP"}).Must(t, http.StatusOK)
	e.Do("GET", "/api/auth/me", f.cid.Token, nil).Must(t, http.StatusUnauthorized)
	if n := e.Do("GET", "/api/clients", f.ann.Token, nil).Must(t, http.StatusOK).Get("data").Len(); n != 1 {
		t.Fatalf("%d clients after offboarding one", n)
	}
	// A client cannot have clients.
	e.Do("POST", "/api/clients", f.cal.Token, map[string]string{"name": "Sub"}).WantError(t, http.StatusForbidden, "forbidden", "")
}

// findAudit is the newest entry of an action in the log the token reads.
func findAudit(t *testing.T, e *env, token, action string) apitest.JSON {
	t.Helper()
	r := e.Do("GET", "/api/audit-log?action="+action, token, nil).Must(t, http.StatusOK)
	if r.Get("data").Len() == 0 {
		t.Fatalf("no %s entry: %s", action, r.Raw)
	}
	return r.Get("data").At(0)
}

func TestTechniciansAndAssignments(t *testing.T) {
	f := newFleet(t)
	e := f.e
	clientsOf := func(token string) []string {
		var ids []string
		for _, c := range e.Do("GET", "/api/clients", token, nil).Must(t, http.StatusOK).Get("data").List() {
			ids = append(ids, c.Get("id").Str())
		}
		return ids
	}
	if got := clientsOf(f.tess.Token); len(got) != 2 {
		t.Fatalf("an unassigned technician reaches %v", got)
	}
	if got := clientsOf(f.tom.Token); len(got) != 1 || got[0] != f.dental {
		t.Fatalf("a technician assigned Dental One reaches %v", got)
	}
	inOrg(e, "GET", "/api/org", f.tom.Token, f.law, nil).WantError(t, http.StatusNotFound, "not_found", "Organization not found")
	e.Do("POST", "/api/auth/switch-org", f.tom.Token, map[string]string{"org_id": f.law}).WantError(t, http.StatusNotFound, "not_found", "Organization not found")
	// A technician works a client's alerts but does not manage it or the provider.
	inOrg(e, "PATCH", "/api/alerts/"+f.dentalAlert, f.tom.Token, f.dental, map[string]string{"assignee": f.tom.ID}).Must(t, http.StatusOK)
	inOrg(e, "POST", "/api/api-keys", f.tom.Token, f.dental, map[string]string{"name": "k", "scope": "read"}).WantError(t, http.StatusForbidden, "forbidden", "")
	e.Do("POST", "/api/clients", f.tom.Token, map[string]string{"name": "New"}).WantError(t, http.StatusForbidden, "forbidden", "")
	// The provider's member (sales) reaches no client.
	e.Do("GET", "/api/clients", f.pam.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")
	inOrg(e, "GET", "/api/org", f.pam.Token, f.dental, nil).WantError(t, http.StatusNotFound, "not_found", "Organization not found")

	// Assignments: only staff, only the provider's clients; empty is all.
	e.Do("PUT", "/api/org/members/"+f.pam.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{f.dental}}).
		WantError(t, http.StatusConflict, "conflict", "")
	e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{f.otherClient}}).
		WantError(t, http.StatusNotFound, "not_found", "")
	e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{}).WantFields(t, "client_ids")
	r := e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{}}).Must(t, http.StatusOK)
	if !r.Get("data", "all_clients").Bool() || len(clientsOf(f.tom.Token)) != 2 {
		t.Fatalf("an emptied assignment: %s", r.Raw)
	}
	// A technician is a provider's role only.
	e.Do("POST", "/api/org/invites", f.cal.Token, map[string]string{"email": "x@dental.test", "role": "technician"}).WantFields(t, "role")
}

func TestOneAccountManyOrganizations(t *testing.T) {
	f := newFleet(t)
	e := f.e
	// Inviting an existing account adds a membership: it accepts with its
	// own password, and keeps its home organization at sign-in.
	e.Verify(f.cal)
	inv := e.Do("POST", "/api/org/invites", f.quinn.Token, map[string]string{"email": f.cal.Email, "role": "member"}).Must(t, http.StatusCreated)
	joined := e.Do("POST", "/api/auth/register", "", map[string]any{"email": f.cal.Email, "password": apitest.Password, "name": "Cal",
		"invite_token": inv.Str("data", "token")}).Must(t, http.StatusCreated)
	if joined.Str("user", "org_id") != f.other || joined.Str("user", "role") != "member" {
		t.Fatalf("joined: %s", joined.Raw)
	}
	login := e.Login(f.cal.Email, apitest.Password).Must(t, http.StatusOK)
	if login.Str("user", "org_id") != f.dental {
		t.Fatalf("signed in to %s, want the home organization", login.Str("user", "org_id"))
	}
	me := e.Do("GET", "/api/auth/me", login.Str("token"), nil).Must(t, http.StatusOK)
	if me.Get("data", "memberships").Len() != 2 {
		t.Fatalf("memberships: %s", me.Raw)
	}
	inOther := e.Do("POST", "/api/auth/switch-org", login.Str("token"), map[string]string{"org_id": f.other}).Must(t, http.StatusOK).Str("token")
	if e.Do("GET", "/api/org", inOther, nil).Must(t, http.StatusOK).Str("data", "id") != f.other {
		t.Fatal("switching did not act in the other organization")
	}
	// Removed from the second organization, the account stays, and the
	// token acting there stops at once.
	e.Do("DELETE", "/api/org/members/"+f.cal.ID, f.quinn.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/org", inOther, nil).Must(t, http.StatusUnauthorized)
	e.Login(f.cal.Email, apitest.Password).Must(t, http.StatusOK)
}

func TestProviderKeysActInClients(t *testing.T) {
	f := newFleet(t)
	e := f.e
	if got := inOrg(e, "GET", "/api/org", f.providerKey, f.dental, nil).Must(t, http.StatusOK).Str("data", "id"); got != f.dental {
		t.Fatalf("the provider's key acted in %s", got)
	}
	missing := inOrg(e, "GET", "/api/org", f.providerKey, "org_01doesnotexist0000000000000", nil)
	missing.WantError(t, http.StatusNotFound, "not_found", "Organization not found")
	for _, tc := range []struct{ name, cred, org string }{
		{"a provider key in another provider's client", f.providerKey, f.otherClient},
		{"a provider key in another provider", f.providerKey, f.other},
		{"a client key in its sister client", f.dentalKey, f.law},
		{"a client key in its provider", f.dentalKey, f.provider},
		{"a client's admin in its provider", f.cal.Token, f.provider},
		{"a technician in another provider's client", f.tess.Token, f.otherClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inOrg(e, "GET", "/api/alerts", tc.cred, tc.org, nil)
			r.WantError(t, http.StatusNotFound, "not_found", "Organization not found")
			if string(r.Raw) != string(missing.Raw) {
				t.Fatalf("an unreachable organization answers %s, a missing one %s", r.Raw, missing.Raw)
			}
		})
	}
	// The client key never leaves its client, even through its own header.
	if got := inOrg(e, "GET", "/api/org", f.dentalKey, f.dental, nil).Must(t, http.StatusOK).Str("data", "id"); got != f.dental {
		t.Fatalf("the client key acted in %s", got)
	}
	// Revoking the provider's key holds in its clients at the next request.
	keys := e.Do("GET", "/api/api-keys", f.ann.Token, nil).Must(t, http.StatusOK)
	e.Do("DELETE", "/api/api-keys/"+keys.Str("data", "0", "id"), f.ann.Token, nil).Must(t, http.StatusOK)
	inOrg(e, "GET", "/api/org", f.providerKey, f.dental, nil).Must(t, http.StatusUnauthorized)
}

// TestTenantIsolationEveryRoute drives every route as each kind of caller
// acting in an organization it may not reach (404, the body of a missing
// organization), and, where it may act, with the id of another
// organization's resource (404, the body of a missing resource).
func TestTenantIsolationEveryRoute(t *testing.T) {
	f := newFleet(t)
	e := f.e
	type caller struct {
		name        string
		cred        string
		unreachable []string
		reachable   []string
	}
	callers := []caller{
		{"provider admin", f.ann.Token, []string{f.other, f.otherClient}, []string{f.provider, f.dental, f.law}},
		{"technician (all clients)", f.tess.Token, []string{f.other, f.otherClient}, []string{f.provider, f.dental, f.law}},
		{"technician (assigned)", f.tom.Token, []string{f.law, f.other, f.otherClient}, []string{f.provider, f.dental}},
		{"provider member", f.pam.Token, []string{f.dental, f.law, f.otherClient}, []string{f.provider}},
		{"client admin", f.cal.Token, []string{f.provider, f.law, f.other, f.otherClient}, []string{f.dental}},
		{"client member", f.cam.Token, []string{f.provider, f.law, f.otherClient}, []string{f.dental}},
		{"provider key", f.providerKey, []string{f.other, f.otherClient}, []string{f.provider, f.dental, f.law}},
		{"client key", f.dentalKey, []string{f.provider, f.law, f.otherClient}, []string{f.dental}},
	}
	// Routes whose call would end the caller's session or organization.
	skip := map[string]bool{"POST /api/auth/logout": true, "POST /api/auth/logout-all": true, "POST /api/auth/change-password": true,
		"POST /api/auth/refresh": true, "POST /api/auth/reauthenticate": true, "DELETE /api/org": true}
	foreign := strings.NewReplacer("{id}", f.otherAlert, "{run_id}", f.otherAlert, "{framework}", "soc2", "{control_id}", f.otherAlert)
	missingID := strings.NewReplacer("{id}", "alr_01doesnotexist000000000000", "{run_id}", "alr_01doesnotexist000000000000",
		"{framework}", "soc2", "{control_id}", "alr_01doesnotexist000000000000")
	missingOrg := inOrg(e, "GET", "/api/org", f.ann.Token, "org_01doesnotexist0000000000000", nil).Raw
	foreignIDs := map[string]bool{} // routes whose foreign-id answer was compared, not refused first
	for _, rt := range e.API.Routes() {
		key := rt.Method + " " + rt.Path
		access := routeAccess[key]
		if access == 0 || skip[key] { // Public, or would end the session
			continue
		}
		for _, c := range callers {
			for _, org := range c.unreachable {
				r := inOrg(e, rt.Method, foreign.Replace(rt.Path), c.cred, org, map[string]any{})
				if r.Status != http.StatusNotFound || string(r.Raw) != string(missingOrg) {
					t.Errorf("%s as %s in an unreachable organization: %d %s", key, c.name, r.Status, r.Raw)
				}
			}
			if !strings.Contains(rt.Path, "{") {
				continue
			}
			for _, org := range c.reachable {
				r := inOrg(e, rt.Method, foreign.Replace(rt.Path), c.cred, org, map[string]any{})
				if r.Status == http.StatusForbidden || r.Status == http.StatusBadRequest || r.Status == http.StatusConflict {
					continue // refused before looking: the role, the body or the plan
				}
				foreignIDs[key] = true
				want := inOrg(e, rt.Method, missingID.Replace(rt.Path), c.cred, org, map[string]any{})
				if r.Status != http.StatusNotFound || r.Status != want.Status || r.Str("error") != want.Str("error") {
					t.Errorf("%s as %s in %s with another organization's id: %d %s (a missing id: %d %s)", key, c.name, org, r.Status, r.Raw,
						want.Status, want.Raw)
				}
			}
		}
	}
	// Most id routes must reach the lookup: a suite refused before it
	// everywhere would check nothing.
	t.Logf("%d routes compared another organization's id with a missing one", len(foreignIDs))
	for _, must := range []string{"GET /api/alerts/{id}", "GET /api/tickets/{id}", "GET /api/clients/{id}",
		"DELETE /api/clients/{id}", "GET /api/org/members/{id}/clients", "DELETE /api/api-keys/{id}"} {
		if !foreignIDs[must] {
			t.Errorf("%s was never compared", must)
		}
	}
}

// A client's escalation reaches the provider's staff who reach the client,
// each once, in the provider's inbox, naming the client.
func TestClientEscalationsReachTheProvider(t *testing.T) {
	f := newFleet(t)
	e := f.e
	e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{f.law}}).Must(t, http.StatusOK)
	sub := e.submitTicket(f.cam.Token, "Help", "It does not work since this morning.", "low")
	if tk := e.awaitTriage(f.cam.Token, sub.Get("id").MustStr(t)); tk.Get("status").Str() != "escalated" {
		t.Fatalf("the vague ticket was not escalated: %v", tk)
	}
	titles := func(token string) []string {
		var out []string
		for _, n := range e.Do("GET", "/api/notifications", token, nil).Must(t, http.StatusOK).Get("data").List() {
			out = append(out, n.Get("title").Str())
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		token string
		want  []string
	}{
		{"the client's admin", f.cal.Token, []string{"Ticket escalated: Help"}},
		{"the provider's admin", f.ann.Token, []string{"Dental One: Ticket escalated: Help"}},
		{"a technician of every client", f.tess.Token, []string{"Dental One: Ticket escalated: Help"}},
		{"a technician of another client", f.tom.Token, nil},
		{"the provider's member", f.pam.Token, nil},
	} {
		if got := titles(tc.token); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s reads %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A won lead becomes a client of the provider, once; the pipeline is the
// provider's and a client has none.
func TestWonLeadBecomesAClient(t *testing.T) {
	e := newEnv(t)
	ann := proOrg(t, e, "ann@acme-msp.test", "Acme MSP")
	e.importCSV(ann.Token, prospectsCSV).Must(t, http.StatusCreated)
	e.runToEnd(ann.Token, "msp-hunter", map[string]any{"region": "Ohio"})
	lead := e.Do("GET", "/api/outreach/leads", ann.Token, nil).Must(t, http.StatusOK).Get("data").At(0)
	id := lead.Get("id").MustStr(t)
	e.Do("POST", "/api/outreach/leads/"+id+"/convert", ann.Token, nil).WantError(t, http.StatusConflict, "conflict", "Only a won lead becomes a client: mark it won first")
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", ann.Token, map[string]any{"status": "won", "note": "Signed"}).Must(t, http.StatusOK)
	c := e.Do("POST", "/api/outreach/leads/"+id+"/convert", ann.Token, nil).Must(t, http.StatusCreated)
	if c.Str("data", "kind") != "client" || c.Str("data", "name") != lead.Get("company").Str() || c.Str("data", "plan") != "pro" {
		t.Fatalf("the client a lead became: %s", c.Raw)
	}
	e.Do("POST", "/api/outreach/leads/"+id+"/convert", ann.Token, nil).WantError(t, http.StatusConflict, "conflict", "")
	var client bool
	for _, h := range e.Do("GET", "/api/outreach/leads/"+id, ann.Token, nil).Must(t, http.StatusOK).Get("data", "history").List() {
		client = client || (h.Get("kind").Str() == "client" && h.Get("to").Str() == c.Str("data", "id"))
	}
	if !client {
		t.Fatal("the lead's history does not name its client")
	}
	// In the client, outreach belongs to the provider.
	inClient := e.Do("POST", "/api/auth/switch-org", ann.Token, map[string]string{"org_id": c.Str("data", "id")}).Must(t, http.StatusOK).Str("token")
	e.Do("GET", "/api/outreach/leads", inClient, nil).WantError(t, http.StatusForbidden, "forbidden",
		"Outreach belongs to the provider: switch to the provider's organization to work its pipeline")
	e.Do("POST", "/api/agents/msp-hunter/execute", inClient, map[string]any{"region": "Ohio"}).WantError(t, http.StatusForbidden, "forbidden", "")
}

// The fleet view: every reachable client with its live figures, worst
// first, filtered, paged; bad queries name their field.
func TestFleetView(t *testing.T) {
	f := newFleet(t)
	e := f.e
	list := e.Do("GET", "/api/clients?sort=open_critical", f.ann.Token, nil).Must(t, http.StatusOK)
	if list.Get("pagination", "total").Int() != 2 || list.Str("data", "0", "id") != f.dental {
		t.Fatalf("the fleet, most critical first: %s", list.Raw)
	}
	dental := list.Get("data").At(0)
	if dental.Get("open_alerts", "critical").Int() != 1 || dental.Get("open_alerts_total").Int() != 1 ||
		dental.Get("oldest_open_critical_age_seconds").IsNull() || dental.Get("last_event_at").IsNull() ||
		dental.Get("grade").Str() == "" || dental.Get("risk_trend").Len() != 7 {
		t.Fatalf("Dental One's row: %s", dental)
	}
	law := list.Get("data").At(1)
	if !law.Get("silent").Bool() || !law.Get("last_event_at").IsNull() || law.Get("open_alerts_total").Int() != 0 {
		t.Fatalf("Law Two, never heard from: %s", law)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"sort=name", []string{f.dental, f.law}},
		{"sort=last_event", []string{f.law, f.dental}},
		{"silent=true", []string{f.law}},
		{"silent=false", []string{f.dental}},
		{"q=DENT", []string{f.dental}},
		{"sort=name&limit=1&offset=1", []string{f.law}},
		{"grade=A,B,C,D,F", []string{f.dental, f.law}},
	} {
		var ids []string
		for _, c := range e.Do("GET", "/api/clients?"+tc.query, f.ann.Token, nil).Must(t, http.StatusOK).Get("data").List() {
			ids = append(ids, c.Get("id").Str())
		}
		if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.query, ids, tc.want)
		}
	}
	for query, field := range map[string]string{"sort=worst": "sort", "grade=E": "grade", "silent=maybe": "silent",
		"q=" + strings.Repeat("x", 101): "q", "limit=-1": "limit"} {
		e.Do("GET", "/api/clients?"+query, f.ann.Token, nil).WantFields(t, field)
	}
	// The technician assigned one client sees one; one client's row.
	if n := e.Do("GET", "/api/clients", f.tom.Token, nil).Must(t, http.StatusOK).Get("data").Len(); n != 1 {
		t.Fatalf("the assigned technician's fleet has %d clients", n)
	}
	e.Do("GET", "/api/clients/"+f.law, f.tom.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
	if got := e.Do("GET", "/api/clients/"+f.dental, f.tom.Token, nil).Must(t, http.StatusOK).Str("data", "name"); got != "Dental One" {
		t.Fatalf("one client's row: %s", got)
	}
	// One queue across clients, each alert naming its client.
	q := e.Do("GET", "/api/clients/alerts?severity=critical", f.tess.Token, nil).Must(t, http.StatusOK)
	if q.Get("data").Len() != 1 || q.Str("data", "0", "client", "id") != f.dental || q.Str("data", "0", "client", "name") != "Dental One" {
		t.Fatalf("the alert queue: %s", q.Raw)
	}
	e.Do("GET", "/api/clients/alerts?status=closed", f.tess.Token, nil).WantFields(t, "status")
	e.Do("GET", "/api/clients/alerts", f.cal.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")

	// Offboarding a technician's only assigned client leaves them none, not all.
	e.Do("PUT", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, map[string]any{"client_ids": []string{f.law}}).Must(t, http.StatusOK)
	e.Do("DELETE", "/api/clients/"+f.law, f.ann.Token, map[string]string{"confirm": "Law Two"}).Must(t, http.StatusOK)
	if n := e.Do("GET", "/api/clients", f.tom.Token, nil).Must(t, http.StatusOK).Get("data").Len(); n != 0 {
		t.Fatalf("a technician whose only client went reaches %d clients", n)
	}
	a := e.Do("GET", "/api/org/members/"+f.tom.ID+"/clients", f.ann.Token, nil).Must(t, http.StatusOK)
	if a.Get("data", "all_clients").Bool() || a.Get("data", "client_ids").Len() != 0 {
		t.Fatalf("their assignment: %s", a.Raw)
	}
	e.Do("GET", "/api/org/members/"+f.cam.ID+"/clients", f.cal.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")
}
