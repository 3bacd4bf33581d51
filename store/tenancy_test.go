package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/store"
	"garrison/store/storetest"
)

// TestUpgradeToMemberships: a database of the release before providers
// (migration 18) opens with today's schema, and its standalone
// organizations and their people behave as they did: the same roles, the
// same admins, the same invitations, the same last-admin rule.
func TestUpgradeToMemberships(t *testing.T) {
	ctx := context.Background()
	full := storetest.Schema(t)
	cut := strings.Index(full, "-- migration: 19")
	if cut < 0 {
		t.Fatal("no migration 19 in the schema")
	}
	path := filepath.Join(t.TempDir(), "g.db")
	st, err := store.Open(ctx, store.Config{Path: path, Schema: full[:cut]})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The previous release's rows, as it wrote them.
	if _, err := db.Exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES ('org_a', 'Acme', 'pro', 1), ('org_b', 'Beta', 'starter', 2);
		INSERT INTO users (id, org_id, email, name, role, password_hash, email_verified_at, created_at, origin) VALUES
			('usr_ann', 'org_a', 'ann@acme.test', 'Ann', 'admin', 'h', 5, 1, 'signup'),
			('usr_bob', 'org_a', 'bob@acme.test', 'Bob', 'member', 'h', NULL, 2, 'invite'),
			('usr_kim', 'org_a', 'kim@acme.test', 'Kim', 'admin', 'h', 6, 3, 'key_invite'),
			('usr_bea', 'org_b', 'bea@beta.test', 'Bea', 'admin', 'h', NULL, 4, 'operator');
		INSERT INTO invites (id, org_id, email, role, token_hash, invited_by, expires_at, created_at, invited_by_key) VALUES
			('inv_1', 'org_a', 'cy@acme.test', 'member', x'01', 'usr_ann', 99999999999999, 7, NULL)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err = store.Open(ctx, store.Config{Path: path, Schema: full})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	for _, tc := range []struct{ email, org, role, origin string }{
		{"ann@acme.test", "org_a", "admin", "signup"},
		{"bob@acme.test", "org_a", "member", "invite"},
		{"kim@acme.test", "org_a", "admin", "key_invite"},
		{"bea@beta.test", "org_b", "admin", "operator"},
	} {
		u, err := st.UserByEmail(ctx, tc.email)
		if err != nil || u.OrgID != tc.org || u.Role != tc.role || u.Origin != tc.origin || u.OrgKind != store.OrgStandalone || u.Via != "" {
			t.Errorf("%s after the upgrade: %+v %v", tc.email, u, err)
		}
		s, revoked, err := st.SessionUser(ctx, u.ID, tc.org, "jti")
		if err != nil || revoked || s.Role != tc.role {
			t.Errorf("%s's session after the upgrade: %+v %v %v", tc.email, s, revoked, err)
		}
	}
	if o, err := st.Org(ctx, "org_a"); err != nil || o.Members != 3 || o.Plan != "pro" || o.Kind != store.OrgStandalone || !o.PlanOwn {
		t.Fatalf("org_a after the upgrade: %+v %v", o, err)
	}
	if members, total, err := st.Members(ctx, "org_a", store.Page{Limit: 10}); err != nil || total != 3 || len(members) != 3 {
		t.Fatalf("members after the upgrade: %d of %d, %v", len(members), total, err)
	}
	if inv, _, err := st.Invites(ctx, "org_a", store.Page{Limit: 10}); err != nil || len(inv) != 1 || inv[0].Role != "member" {
		t.Fatalf("invitations after the upgrade: %+v %v", inv, err)
	}
	if got, err := st.AdminAddresses(ctx, "org_a"); err != nil || !slices.Equal(got, []string{"ann@acme.test", "kim@acme.test"}) {
		t.Fatalf("admin addresses after the upgrade: %v %v", got, err)
	}
	// The admin made through a key's invitation is not enough to leave.
	if err := st.DeleteMember(ctx, "org_a", "usr_ann"); !errors.Is(err, store.ErrLastAdmin) {
		t.Fatalf("removing the only admin not made by a key: %v", err)
	}
	if err := st.DeleteMember(ctx, "org_a", "usr_bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UserByID(ctx, "usr_bob"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a member removed from their only organization still has an account: %v", err)
	}
	if _, err := st.DeleteOrg(ctx, "org_b"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UserByEmail(ctx, "bea@beta.test"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted organization's admin: %v", err)
	}
}

// TestReach: who may act in which organization, by membership and by a
// provider's staff membership and assignments.
func TestReach(t *testing.T) {
	storetest.EachEngine(t, testReach)
}

func testReach(t *testing.T, engine string) {
	ctx := context.Background()
	st := storetest.OpenOn(t, engine, store.Config{})
	ann := storetest.Account(t, st, "ann") // the provider's admin
	provider := ann.OrgID
	dental, err := st.CreateClient(ctx, store.NewClient{ProviderID: provider, Name: "Dental"})
	if err != nil {
		t.Fatal(err)
	}
	law, err := st.CreateClient(ctx, store.NewClient{ProviderID: provider, Name: "Law", Plan: "ultimate"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateClient(ctx, store.NewClient{ProviderID: dental.ID, Name: "Sub"}); !errors.Is(err, store.ErrClientOfClient) {
		t.Fatalf("a client's client: %v", err)
	}
	other := storetest.Account(t, st, "olga")
	join := func(u store.User, org, role string) {
		t.Helper()
		hash := []byte("invite " + u.ID + org)
		if _, err := st.CreateInvite(ctx, store.Invite{OrgID: org, Email: u.Email, Role: role, TokenHash: hash, ExpiresAt: time.Now().Add(time.Hour)},
			store.Mail{To: u.Email, Subject: "s", Body: "b"}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.JoinOrg(ctx, u.ID, hash); err != nil {
			t.Fatal(err)
		}
	}
	tess, tom, pam, cal := storetest.Account(t, st, "tess"), storetest.Account(t, st, "tom"), storetest.Account(t, st, "pam"),
		storetest.Account(t, st, "cal")
	join(tess, provider, "technician")
	join(tom, provider, "technician")
	join(pam, provider, "member")
	join(cal, dental.ID, "admin")
	if err := st.SetMemberClients(ctx, provider, tom.ID, []string{law.ID}); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMemberClients(ctx, provider, pam.ID, []string{law.ID}); !errors.Is(err, store.ErrNotStaff) {
		t.Fatalf("assigning a member: %v", err)
	}
	for _, tc := range []struct {
		name      string
		user      store.User
		org       string
		role, via string // "" role: may not act there
	}{
		{"provider admin in the provider", ann, provider, "admin", ""},
		{"provider admin in a client", ann, dental.ID, "admin", provider},
		{"technician in the provider", tess, provider, "technician", ""},
		{"technician in a client", tess, law.ID, "technician", provider},
		{"assigned technician in their client", tom, law.ID, "technician", provider},
		{"assigned technician in another client", tom, dental.ID, "", ""},
		{"provider member in a client", pam, dental.ID, "", ""},
		{"client admin in the client", cal, dental.ID, "admin", ""},
		{"client admin in the provider", cal, provider, "", ""},
		{"client admin in a sister client", cal, law.ID, "", ""},
		{"another organization's admin in a client", other, dental.ID, "", ""},
	} {
		u, err := st.UserIn(ctx, tc.user.ID, tc.org)
		switch {
		case tc.role == "" && !errors.Is(err, store.ErrNotFound):
			t.Errorf("%s: acts as %+v (%v), want not at all", tc.name, u, err)
		case tc.role != "" && (err != nil || u.Role != tc.role || u.Via != tc.via || u.OrgID != tc.org):
			t.Errorf("%s: %+v %v, want role %s via %q", tc.name, u, err, tc.role, tc.via)
		}
	}
	// A client takes its provider's plan unless it has its own.
	if _, err := st.SetPlanByAdmin(ctx, "ann@example.test", "pro"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{dental.ID: "pro", law.ID: "ultimate"} {
		if o, err := st.Org(ctx, id); err != nil || o.Plan != want {
			t.Errorf("client %s's plan %q (%v), want %s", id, o.Plan, err, want)
		}
	}
	// A client's mail reaches its admins and the staff who reach it, once.
	for _, name := range []string{"ann", "tess", "tom", "cal"} {
		if _, err := st.VerifyEmail(ctx, []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.AdminAddresses(ctx, dental.ID); err != nil ||
		!slices.Equal(got, []string{"ann@example.test", "cal@example.test", "tess@example.test"}) {
		t.Fatalf("Dental's mail goes to %v (%v)", got, err)
	}
	// A person in two organizations keeps their account when their home
	// goes; one in only it does not.
	join(ann, other.OrgID, "member")
	if _, err := st.DeleteOrg(ctx, provider); !errors.Is(err, store.ErrProviderHasClients) {
		t.Fatalf("deleting a provider with clients: %v", err)
	}
	for _, c := range []string{dental.ID, law.ID} {
		if _, err := st.DeleteOrg(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DeleteOrg(ctx, provider); err != nil {
		t.Fatal(err)
	}
	if u, err := st.UserByID(ctx, ann.ID); err != nil || u.OrgID != other.OrgID || u.Role != "member" {
		t.Fatalf("the provider's admin, who also belongs elsewhere: %+v %v", u, err)
	}
	if _, err := st.UserIn(ctx, tom.ID, provider); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the deleted provider's technician still acts there: %v", err)
	}
}
