package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

var keyFormat = regexp.MustCompile(`^svc_live_[A-Za-z0-9]{32}$`)

func TestAPIKeyCLI(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	dataDir := dataDirOf(t, e.app)
	run := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := runCLI(t, append([]string{"apikey", "create", "--data", dataDir}, args...), &out, &errOut)
		return strings.TrimSpace(out.String()), err
	}
	key, err := run("--email", admin.Email, "--name", "from cli", "--scope", "write", "--expires-at", "2027-01-01T00:00:00Z")
	if err != nil || !keyFormat.MatchString(key) {
		t.Fatalf("apikey create: %q %v", key, err)
	}
	r := e.Do("GET", "/api/api-keys", admin.Token, nil).Get("data", "0")
	if r.Get("name").Str() != "from cli" || r.Get("scope").Str() != "write" || r.Get("expires_at").Str() != "2027-01-01T00:00:00Z" {
		t.Fatalf("listed: %v", r)
	}
	e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
	// The key is on the organization's audit log, by the operator at the shell.
	entry := e.Do("GET", "/api/audit-log?action=api_key.create", admin.Token, nil).Must(t, http.StatusOK).Get("data").At(0)
	if !strings.HasPrefix(entry.Get("actor").Str(), "cli:") || entry.Get("target").Str() != r.Get("id").Str() ||
		entry.Get("detail", "scope").Str() != "write" || entry.Get("detail", "expires_at").Str() != "2027-01-01T00:00:00Z" ||
		entry.Get("detail", "for_admin").Str() != admin.Email {
		t.Fatalf("audit entry of a CLI-made key: %v", entry)
	}
	for name, args := range map[string][]string{
		"member email":  {"--email", member.Email, "--name", "x", "--scope", "read"},
		"unknown email": {"--email", "nobody@acme.test", "--name", "x", "--scope", "read"},
		"bad scope":     {"--email", admin.Email, "--name", "x", "--scope", "root"},
		"bad expiry":    {"--email", admin.Email, "--name", "x", "--scope", "read", "--expires-at", "soon"},
	} {
		if out, err := run(args...); err == nil || out != "" {
			t.Errorf("%s: accepted (%q)", name, out)
		}
	}
}

func TestOrgAndPlanCLI(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	org := e.Do("GET", "/api/org", admin.Token, nil).Must(t, http.StatusOK).Data()
	if org["name"] != "Acme" || org["plan"] != "starter" || org["members_count"] != float64(2) || org["id"] != admin.OrgID {
		t.Fatalf("org: %v", org)
	}
	// The member's session, and so its plan, is now held by the server.
	hunt := map[string]string{"vertical": "legal"}
	e.Do("POST", "/api/agents/msp-hunter/execute", member.Token, hunt).Must(t, http.StatusForbidden)
	key := e.APIKey(admin, "write")
	e.Do("POST", "/api/agents/msp-hunter/execute", key, hunt).Must(t, http.StatusForbidden)
	var out bytes.Buffer
	if err := runCLI(t, []string{"org", "set-plan", "--data", dataDirOf(t, e.app), "--email", admin.Email, "--plan", "pro"}, &out, &out); err != nil {
		t.Fatalf("set-plan: %v (%s)", err, out.String())
	}
	// The running server sees it on the very next request, sessions and
	// keys alike, though another process made the change.
	if p := e.Do("GET", "/api/org", member.Token, nil).Str("data", "plan"); p != "pro" {
		t.Fatalf("plan after set-plan: %q", p)
	}
	if d := e.Do("GET", "/api/audit-log?action=org.plan", admin.Token, nil).Must(t, http.StatusOK).Get("data").At(0).Get("detail"); d.Get("plan_from").Str() != "starter" || d.Get("plan_to").Str() != "pro" {
		t.Fatalf("the plan change's audit detail: %v", d)
	}
	e.Do("POST", "/api/agents/msp-hunter/execute", member.Token, hunt).Must(t, http.StatusAccepted)
	e.Do("POST", "/api/agents/msp-hunter/execute", key, hunt).Must(t, http.StatusAccepted)
	for name, args := range map[string][]string{
		"member email": {"--email", member.Email, "--plan", "ultimate"},
		"bad plan":     {"--email", admin.Email, "--plan", "gold"},
	} {
		if err := runCLI(t, append([]string{"org", "set-plan", "--data", dataDirOf(t, e.app)}, args...), &out, &out); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if p := e.Do("GET", "/api/org", admin.Token, nil).Str("data", "plan"); p != "pro" {
		t.Fatalf("refused set-plan changed the plan: %q", p)
	}
}

func TestDefaultPlanFlag(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.defaultPlan = "pro" })
	a := e.Register("ann@acme.test", "Acme")
	if got := e.Do("GET", "/api/org", a.Token, nil).Must(t, http.StatusOK).Str("data", "plan"); got != "pro" {
		t.Fatalf("plan %q", got)
	}
}

func TestBlocklistImport(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(t.TempDir(), "list.txt")
	os.WriteFile(list, []byte("# our own list\n0.0.0.0 evil-c2.example\n||phish-kit.example^\n"), 0o600)
	var out bytes.Buffer
	if err := runCLI(t, []string{"blocklist", "import", "--data", dir, "--category", "malware", "--file", list}, &out, &out); err != nil {
		t.Fatalf("import: %v %s", err, out.String())
	}
	for name, args := range map[string][]string{
		"bad category": {"--category", "Bad Name!", "--file", list},
		"missing file": {"--category", "malware", "--file", filepath.Join(dir, "nope.txt")},
	} {
		if err := runCLI(t, append([]string{"blocklist", "import", "--data", dir}, args...), &out, &out); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	e := newTestEnv(t, func(c *config) { c.dataDir = dir })
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	at := e.clock.Now().Add(-time.Minute).Format(time.RFC3339)
	e.DoHeaders("POST", "/api/webhooks/native", mustJSON(map[string]any{"dns": []map[string]string{
		{"timestamp": at, "client": "10.0.0.4", "domain": "beacon.evil-c2.example", "qtype": "A"},
		{"timestamp": at, "client": "10.0.0.4", "domain": "www.example.org", "qtype": "A"},
	}}), map[string]string{"Authorization": "Bearer " + key}).Must(t, http.StatusCreated)
	top := e.Do("GET", "/api/dashboard/network-health", key, nil).Must(t, http.StatusOK).Get("data", "top_blocked_domains").List()
	if len(top) != 1 || top[0].Get("domain").Str() != "beacon.evil-c2.example" || top[0].Get("category").Str() != "malware" {
		t.Fatalf("imported list not applied: %v", top)
	}
}

// TestIntelImportCLI imports beside a running server: the server's agents
// tell the watching organization what changed.
func TestIntelImportCLI(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	dataDir := dataDirOf(t, e.app)
	e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2025-48384"}).Must(t, http.StatusCreated)
	dir := t.TempDir()
	kev, err := os.ReadFile("intel/testdata/kev_sample.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "kev.json"), kev, 0o600)
	os.WriteFile(filepath.Join(dir, "broken.json"), kev[:len(kev)/2], 0o600)
	var out, errOut bytes.Buffer
	err = runCLI(t, []string{"intel", "import", "--data", dataDir, filepath.Join(dir, "kev.json"), filepath.Join(dir, "broken.json")}, &out, &errOut)
	// One good file, one refused whole: the command says so and fails.
	if err == nil || !strings.Contains(out.String(), "kev.json: kev, 5 records") || !strings.Contains(out.String(), "1 organization(s) to notify") ||
		!strings.Contains(errOut.String(), "broken.json: ") || !strings.Contains(errOut.String(), "at byte") {
		t.Fatalf("intel import: %v\nstdout %s\nstderr %s", err, out.String(), errOut.String())
	}
	st := e.Do("GET", "/api/intel/status", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if st.Get("counts", "kev").Float() != 5 || st.Get("last_imports", "kev", "via").Str() != "cli" {
		t.Fatalf("status: %v", st)
	}
	e.app.Runner.Notify()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := e.Do("GET", "/api/notifications", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
		if len(list) == 1 && strings.HasPrefix(list[0].Get("title").MustStr(t), "CVE-2025-48384: ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no notification: %v", list)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := runCLI(t, []string{"intel", "import", "--data", dataDir}, &out, &errOut); err == nil {
		t.Fatal("no files: accepted")
	}
}

// TestRegistrationModesAndOrgCreate: a closed appliance is set up from the
// command line; an invite-only one lets invited people in.
func TestRegistrationModesAndOrgCreate(t *testing.T) {
	for _, mode := range []string{"closed", "invite"} {
		t.Run(mode, func(t *testing.T) {
			e := newTestEnv(t, func(c *config) { c.registration = mode })
			dataDir := dataDirOf(t, e.app)
			signup := map[string]any{"email": "eve@example.test", "password": "correct horse battery", "name": "Eve"}
			want := map[string]string{"closed": "Registration is closed on this appliance; its operator creates organizations (garrison org create)",
				"invite": "Registration on this appliance needs an invitation: send the invite_token an admin's invitation mail carries"}[mode]
			e.Do("POST", "/api/auth/register", "", signup).WantError(t, http.StatusForbidden, "registration_closed", want)

			// The operator makes the organization; the password comes on stdin.
			defer func(r io.Reader) { stdin = r }(stdin)
			stdin = strings.NewReader("a long operator passphrase\n")
			var out bytes.Buffer
			if err := runCLI(t, []string{"org", "create", "--data", dataDir, "--name", "Acme MSP", "--admin-email", "Ops@Acme.test",
				"--plan", "pro", "--password-stdin"}, &out, &out); err != nil || !strings.Contains(out.String(), "Created Acme MSP") {
				t.Fatalf("org create: %v %s", err, out.String())
			}
			login := e.Login("ops@acme.test", "a long operator passphrase").Must(t, http.StatusOK)
			me := e.Do("GET", "/api/auth/me", login.Str("token"), nil).Must(t, http.StatusOK).Data()
			if me["email_verified"] != true || me["role"] != "admin" || me["plan"] != "pro" {
				t.Fatalf("the CLI's admin: %v", me)
			}
			if mode == "invite" {
				admin := apitest.Account{Token: login.Str("token"), Email: "ops@acme.test"}
				inv := e.Do("POST", "/api/org/invites", admin.Token, map[string]string{"email": "eve@example.test", "role": "member"}).Must(t, http.StatusCreated)
				signup["invite_token"] = inv.Str("data", "token")
				e.Do("POST", "/api/auth/register", "", signup).Must(t, http.StatusCreated)
			}
			// Without a password, a one-time token sets it.
			out.Reset()
			if err := runCLI(t, []string{"org", "create", "--data", dataDir, "--name", "Beta", "--admin-email", "boss@beta.test"}, &out, &out); err != nil {
				t.Fatal(err)
			}
			tok := regexp.MustCompile(`"token": "([^"]+)"`).FindStringSubmatch(out.String())
			if tok == nil {
				t.Fatalf("no token printed: %s", out.String())
			}
			e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": tok[1], "new_password": "another long passphrase"}).Must(t, http.StatusOK)
			e.Login("boss@beta.test", "another long passphrase").Must(t, http.StatusOK)
			// Bad input is refused and makes nothing.
			for _, args := range [][]string{{"--name", "", "--admin-email", "x@y.test"}, {"--name", "Gamma", "--admin-email", "nope"},
				{"--name", "Gamma", "--admin-email", "g@g.test", "--plan", "gold"}, {"--name", "Delta", "--admin-email", "ops@acme.test"}} {
				if err := runCLI(t, append([]string{"org", "create", "--data", dataDir}, args...), &out, &out); err == nil {
					t.Errorf("%v: accepted", args)
				}
			}
		})
	}
}

// TestCLIMistypedDataAndHelp: a command on a directory without a database
// refuses instead of making an empty one; asking a command for help works.
func TestCLIMistypedDataAndHelp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	var out bytes.Buffer
	for _, args := range [][]string{
		{"apikey", "create", "--data", dir, "--email", "a@b.test", "--name", "x", "--scope", "read"},
		{"org", "set-plan", "--data", dir, "--email", "a@b.test", "--plan", "pro"},
		{"intel", "import", "--data", dir, "intel/testdata/kev_sample.json"},
	} {
		err := runCLI(t, args, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "no Garrison database") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a mistyped --data was created: %v", err)
	}
	for _, cmd := range []string{"apikey", "org", "blocklist", "intel"} {
		out.Reset()
		if err := runCLI(t, []string{cmd, "--help"}, &out, &out); err != nil || !strings.Contains(out.String(), "usage: garrison "+cmd) {
			t.Errorf("%s --help: %v %q", cmd, err, out.String())
		}
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := runCLI(t, []string{"version"}, &out, &out); err != nil || !strings.HasPrefix(out.String(), "garrison ") {
		t.Fatalf("version: %v %q", err, out.String())
	}
	e := newTestEnv(t, func(c *config) { c.node = "soc-node-2" })
	r := e.Do("GET", "/api/dashboard/health", "", nil).Must(t, http.StatusOK)
	if v := r.Data()["version"]; v != buildVersion() || v == "" {
		t.Fatalf("health version %v, want %s", v, buildVersion())
	}
	// Which node answered, and on which database.
	if d := r.Data(); d["node"] != "soc-node-2" || d["database"] != "sqlite" || r.Header.Get("X-Garrison-Node") != "soc-node-2" {
		t.Fatalf("health names node %v (header %q) on %v", d["node"], r.Header.Get("X-Garrison-Node"), d["database"])
	}
}

// TestOrgDelete: by the API (an admin's session, confirmed by name) and by
// the CLI; everything the organization owned goes, its credentials stop
// working at once, and other organizations keep theirs.
func TestOrgDelete(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "admin")
	other := e.Register("zoe@other.test", "Other")
	otherKey := e.APIKey(other, "write")
	at := e.clock.Now().Add(-time.Hour).Format(time.RFC3339)
	for _, k := range []string{key, otherKey} {
		e.Do("POST", "/api/events", k, map[string]any{"events": []map[string]any{{"type": "threat_detected", "severity": "critical",
			"source": "ids", "asset": "web-01", "timestamp": at, "message": "exploit"}}}).Must(t, http.StatusCreated)
	}
	e.Do("DELETE", "/api/org", key, map[string]any{"confirm": "Acme"}).WantError(t, http.StatusForbidden, "forbidden", "Changing who is an admin, and deleting the organization, need an admin's session, not an API key")
	e.Do("DELETE", "/api/org", admin.Token, map[string]any{"confirm": "acme"}).WantFields(t, "confirm")
	e.Do("DELETE", "/api/org", admin.Token, map[string]any{}).WantFields(t, "confirm")
	var num int64 // the number its events carry
	if err := e.app.Store.DB().QueryRow(`SELECT num FROM org_numbers WHERE org_id = ?`, admin.OrgID).Scan(&num); err != nil {
		t.Fatal(err)
	}
	d := e.Do("DELETE", "/api/org", admin.Token, map[string]any{"confirm": "Acme"}).Must(t, http.StatusOK).Data()
	if d["deleted"] != true || d["name"] != "Acme" {
		t.Fatalf("delete: %v", d)
	}
	e.Do("GET", "/api/auth/me", admin.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "")
	e.Do("GET", "/api/events", key, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "")
	var left int
	if err := e.app.Store.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE org = ?`, num).Scan(&left); err != nil || left != 0 {
		t.Fatalf("events: %d rows left (%v)", left, err)
	}
	for _, table := range []string{"org_numbers", "alerts", "event_rollup", "event_counts", "users", "api_keys"} {
		if err := e.app.Store.DB().QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE org_id = ?`, admin.OrgID).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%s: %d rows left (%v)", table, left, err)
		}
	}
	if total := e.Do("GET", "/api/events", otherKey, nil).Must(t, http.StatusOK).Get("pagination", "total"); total.Float() != 1 {
		t.Fatalf("the other organization's events: %v", total)
	}
	// The address is free again.
	e.Register("ann@acme.test", "Acme again")

	// The CLI asks for the name unless --yes.
	dataDir := dataDirOf(t, e.app)
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = strings.NewReader("not the name\n")
	var out bytes.Buffer
	if err := runCLI(t, []string{"org", "delete", "--data", dataDir, "--email", other.Email}, &out, &out); err == nil {
		t.Fatal("deleted without confirmation")
	}
	stdin = strings.NewReader("Other\n")
	if err := runCLI(t, []string{"org", "delete", "--data", dataDir, "--email", other.Email}, &out, &out); err != nil {
		t.Fatalf("org delete: %v %s", err, out.String())
	}
	e.Do("GET", "/api/events", otherKey, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "")
}

// TestOrgCreateClientCLI: the operator makes a client under a provider's
// admin, which the running server sees at the next request; the client's
// admin is invited; bad input makes nothing.
func TestOrgCreateClientCLI(t *testing.T) {
	e := newTestEnv(t)
	ann := e.Register("ann@acme-msp.test", "Acme MSP")
	dataDir := dataDirOf(t, e.app)
	var out bytes.Buffer
	if err := runCLI(t, []string{"org", "create", "--data", dataDir, "--name", "Dental One", "--provider-email", ann.Email,
		"--admin-email", "cal@dental.test"}, &out, &out); err != nil || !strings.Contains(out.String(), "Created client Dental One") {
		t.Fatalf("org create --provider-email: %v %s", err, out.String())
	}
	tok := regexp.MustCompile(`invite_token (\S+),`).FindStringSubmatch(out.String())
	if tok == nil {
		t.Fatalf("no invitation printed: %s", out.String())
	}
	clients := e.Do("GET", "/api/clients", ann.Token, nil).Must(t, http.StatusOK)
	if clients.Get("data").Len() != 1 || clients.Str("data", "0", "name") != "Dental One" || clients.Str("data", "0", "plan") != "starter" {
		t.Fatalf("the provider's clients: %s", clients.Raw)
	}
	cal := e.Do("POST", "/api/auth/register", "", map[string]any{"email": "cal@dental.test", "password": apitest.Password, "name": "Cal",
		"invite_token": tok[1]}).Must(t, http.StatusCreated)
	if cal.Str("user", "org_id") != clients.Str("data", "0", "id") || cal.Str("user", "role") != "admin" {
		t.Fatalf("the client's admin: %s", cal.Raw)
	}
	entry := e.Do("GET", "/api/audit-log?action=client.create", ann.Token, nil).Must(t, http.StatusOK)
	if entry.Get("data").Len() != 1 || !strings.HasPrefix(entry.Str("data", "0", "actor"), "cli:") {
		t.Fatalf("the provider's log: %s", entry.Raw)
	}
	for _, args := range [][]string{{"--name", "X", "--provider-email", "nobody@acme.test"}, {"--name", "", "--provider-email", ann.Email},
		{"--name", "Y", "--provider-email", cal.Str("user", "email")}, {"--name", "Z", "--provider-email", ann.Email, "--plan", "gold"}} {
		if err := runCLI(t, append([]string{"org", "create", "--data", dataDir}, args...), &out, &out); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	if n := e.Do("GET", "/api/clients", ann.Token, nil).Must(t, http.StatusOK).Get("data").Len(); n != 1 {
		t.Fatalf("%d clients after refused commands", n)
	}
}
