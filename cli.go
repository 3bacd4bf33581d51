package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"garrison/account"
	"garrison/actor"
	"garrison/app"
	"garrison/audit"
	"garrison/blocklist"
	"garrison/credential"
	"garrison/demo"
	"garrison/fault"
	"garrison/mail"
	"garrison/store"
	"garrison/wording"
)

func runAPIKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return usageOf(args, stdout, "usage: garrison apikey create --email ADMIN_EMAIL --name NAME --scope read|write|admin [--expires-at RFC3339]")
	}
	fs := newFlagSet("garrison apikey create [flags]",
		"Creates an API key for the organization of the admin with --email and prints it.\nThe key is shown this once; only its hash is stored.", stderr)
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	name := fs.String("name", "", "descriptive name of the key (required)")
	scope := fs.String("scope", "", "read, write or admin (required)")
	expiresAt := fs.String("expires-at", "", "optional expiry, RFC 3339 (for example 2027-02-01T00:00:00Z)")
	st, err := cliStore(ctx, fs, args[1:], getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	accounts := cliAccounts(st)
	admin, err := cliAdmin(ctx, accounts, *email)
	if err != nil {
		return err
	}
	var expiry *string
	if *expiresAt != "" {
		expiry = expiresAt
	}
	k, secret, err := account.CreateKey(ctx, st, account.NewKey{OrgID: admin.OrgID, CreatedBy: admin.ID,
		Name: *name, Scope: *scope, ExpiresAt: expiry}, time.Now())
	if err != nil {
		return err
	}
	detail := map[string]string{"name": k.Name, "scope": k.Scope, "for_admin": admin.Email}
	if k.ExpiresAt != nil {
		detail["expires_at"] = k.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: admin.OrgID, Actor: audit.CLIActor(currentUser()), Action: audit.KeyCreate,
		Target: k.ID, Detail: detail}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "Created API key %s (%s, scope %s) for %s. It is shown only this once:\n", k.ID, k.Name, k.Scope, admin.OrgName)
	fmt.Fprintln(stdout, secret)
	return nil
}

func runOrg(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "create" {
		return runOrgCreate(ctx, args[1:], getenv, stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "delete" {
		return runOrgDelete(ctx, args[1:], getenv, stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "set-quota" {
		return runOrgSetQuota(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "set-retention" {
		return runOrgSetRetention(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "set-plan" {
		return usageOf(args, stdout, "usage: garrison org set-plan --email ADMIN_EMAIL --plan starter|pro|ultimate\n"+
			"       garrison org set-quota --email ADMIN_EMAIL --quota SIZE|default\n"+
			"       garrison org set-retention --email ADMIN_EMAIL --retention DAYS|0|default\n"+
			"       garrison org create --name NAME --admin-email EMAIL [--admin-name NAME] [--plan PLAN] [--password-stdin]\n"+
			"       garrison org create --name NAME --provider-email PROVIDER_ADMIN_EMAIL [--admin-email EMAIL] [--plan PLAN]\n"+
			"       garrison org delete --email ADMIN_EMAIL [--yes]")
	}
	fs := newFlagSet("garrison org set-plan [flags]",
		"Changes the plan of the organization of the admin with --email.\nA running server applies it from the next request.", stderr)
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	plan := fs.String("plan", "", "starter, pro or ultimate (required)")
	st, err := cliStore(ctx, fs, args[1:], getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	accounts := cliAccounts(st)
	before := ""
	if admin, err := accounts.AdminByEmail(ctx, *email); err == nil {
		if org, err := accounts.Org(ctx, admin.OrgID); err == nil {
			before = org.Plan
		}
	}
	org, err := accounts.SetPlanByAdmin(ctx, *email, *plan)
	switch {
	case fault.Has(err, fault.Invalid):
		return fmt.Errorf("--plan must be starter, pro or ultimate, not %q", *plan)
	case errors.Is(err, account.ErrNoSuchAdmin):
		return fmt.Errorf("no admin with e-mail %q", *email)
	case err != nil:
		return err
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: org.ID, Actor: audit.CLIActor(currentUser()), Action: audit.OrgPlan,
		Detail: map[string]string{"plan": org.Plan, "plan_from": before, "plan_to": org.Plan}}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s) is now on the %s plan\n", org.Name, org.ID, org.Plan)
	return nil
}

func runDemoCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison demo [flags]", "Creates the demo organization and admin, with 30 days of events, alerts and DNS telemetry,\n"+
		"and prints the credentials. Does nothing if it exists already.", stderr)
	st, err := cliStoreAt(ctx, fs, args, getenv, true)
	if err != nil {
		return err
	}
	defer st.Close()
	return demo.Create(ctx, st, time.Now(), stdout)
}

// cliStore adds --data to a command's flags, parses them and opens the
// store of an existing appliance: a mistyped --data is refused, not made
// into a new empty database.
func cliStore(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string) (*store.Store, error) {
	return cliStoreAt(ctx, fs, args, getenv, false)
}

// cliStoreAt is cliStore for the commands that may set up a new appliance
// (create true: demo, org create).
func cliStoreAt(ctx context.Context, fs *flag.FlagSet, args []string, getenv func(string) string, create bool) (*store.Store, error) {
	dataDir := fs.String("data", "./data", "data directory")
	database := fs.String("database", "", "PostgreSQL URL of a cluster's database (empty: the SQLite file in --data)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return nil, err
	}
	if *database != "" {
		if !store.IsPostgres(*database) {
			return nil, errors.New("--database must be a postgres:// or postgresql:// URL")
		}
		// A command changes the data as a node does: at the cluster's
		// schema, which garrison migrate sets.
		return store.Open(ctx, store.Config{Database: *database, Schema: schemaSQL, Now: time.Now, NoMigrate: true})
	}
	if err := existingData(*dataDir, create); err != nil {
		return nil, err
	}
	return app.OpenStore(ctx, *dataDir, schemaSQL, store.Config{Now: time.Now})
}

// existingData refuses a data directory without a Garrison database,
// unless the command may create one.
func existingData(dataDir string, create bool) error {
	if create {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dataDir, "garrison.db")); err != nil {
		return fmt.Errorf("no Garrison database in %s (is --data right? start the server there once, or run garrison org create)", dataDir)
	}
	return nil
}

func runBlocklist(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		return usageOf(args, stdout, "usage: garrison blocklist import --category NAME --file PATH [--data DIR]")
	}
	fs := newFlagSet("garrison blocklist import [flags]",
		"Adds a domain list (plain domains, hosts-file or ||domain^ lines) under a category. Queries for\n"+
			"its domains count as blocked from the next server start.", stderr)
	dataDir := fs.String("data", "./data", "data directory")
	category := fs.String("category", "", "category of the list, for example malware or tracker (required)")
	file := fs.String("file", "", "the list to import; - reads standard input (required)")
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	var data []byte
	var err error
	if *file == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(*file)
	}
	if err != nil {
		return fmt.Errorf("read list: %w", err)
	}
	added, err := blocklist.Save(*dataDir, *category, data)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Imported %d domains as %s; a running server uses them from its next start.\n", added, *category)
	return nil
}

// runOrgCreate makes an organization and its admin: the operator's way in
// when registration is invite-only or closed.
func runOrgCreate(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison org create [flags]",
		"Creates an organization and its admin, whose address counts as confirmed. With --password-stdin the\n"+
			"password is the first line of standard input; otherwise a one-time set-password token (valid 24 hours)\n"+
			"is printed and mailed.", stderr)
	name := fs.String("name", "", "the organization's name (required)")
	email := fs.String("admin-email", "", "the admin's e-mail address (required, except for a client: its first admin, invited)")
	adminName := fs.String("admin-name", "Administrator", "the admin's name")
	plan := fs.String("plan", "", "starter, pro or ultimate (default: starter; a client's: its provider's, as it changes)")
	provider := fs.String("provider-email", "", "make a client of the organization of the admin with this address (it becomes a provider)")
	fromStdin := fs.Bool("password-stdin", false, "read the admin's password from the first line of standard input")
	baseURL := fs.String("base-url", "https://localhost:8443", "public URL of the server, for the link in the mail")
	st, err := cliStoreAt(ctx, fs, args, getenv, true)
	if err != nil {
		return err
	}
	defer st.Close()
	password := ""
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the password: %w", err)
		}
		if password = strings.TrimRight(line, "\r\n"); password == "" {
			return errors.New("--password-stdin: standard input holds no password")
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mailer := mail.New(mail.Config{Store: st, Log: log, Now: time.Now, BaseURL: *baseURL})
	accounts := account.New(account.Config{Store: st, Passwords: credential.NewHasher(credential.DefaultIterations), Mailer: mailer,
		Now: time.Now, Log: log})
	res, err := accounts.CreateOrg(ctx, account.NewOrg{Name: *name, AdminEmail: *email, AdminName: *adminName, Plan: *plan, Password: password,
		ProviderEmail: *provider})
	if errors.Is(err, account.ErrNoSuchAdmin) {
		return fmt.Errorf("--provider-email: no admin with e-mail %q", *provider)
	}
	if err != nil {
		return err
	}
	if res.Client != nil {
		return reportClientCreated(ctx, st, res, stdout)
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: res.Admin.OrgID, Actor: audit.CLIActor(currentUser()), Action: audit.OrgCreate,
		Target: res.Admin.OrgID, Detail: map[string]string{"name": res.Admin.OrgName, "plan": res.Admin.Plan, "admin": res.Admin.Email}}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created %s (%s, %s plan) with admin %s (%s).\n", res.Admin.OrgName, res.Admin.OrgID, res.Admin.Plan, res.Admin.Email, res.Admin.ID)
	if res.SetPasswordToken != "" {
		fmt.Fprintf(stdout, "Set the admin's password before %s with POST /api/auth/reset-confirm {\"token\": %q, \"new_password\": \"…\"}\n"+
			"(the token was also mailed to %s).\n", res.SetPasswordUntil.UTC().Format(time.RFC3339), res.SetPasswordToken, res.Admin.Email)
	}
	return nil
}

// reportClientCreated audits and prints a client the operator made.
func reportClientCreated(ctx context.Context, st *store.Store, res account.CreatedOrg, stdout io.Writer) error {
	c := res.Client.Client
	by := audit.CLIActor(currentUser())
	detail := map[string]string{"name": c.Name, "plan": c.Plan, "provider": res.Admin.OrgID}
	if res.Client.Invite != nil {
		detail["admin"] = res.Client.Invite.Email
	}
	for _, org := range []string{c.ID, res.Admin.OrgID} {
		if err := audit.Record(ctx, st, store.AuditEntry{OrgID: org, Actor: by, Action: audit.ClientCreate, Target: c.ID, Detail: detail}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "Created client %s (%s, %s plan) of %s (%s).\n", c.Name, c.ID, c.Plan, res.Admin.OrgName, res.Admin.OrgID)
	if inv := res.Client.Invite; inv != nil {
		fmt.Fprintf(stdout, "Invited %s as its admin (mailed; invite_token %s, valid until %s).\n", inv.Email, res.Client.InviteToken,
			inv.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// cliAccounts is the account rules over a CLI's store: the admin commands
// call the same rules as the API.
func cliAccounts(st *store.Store) *account.Accounts {
	return account.New(account.Config{Store: st, Now: time.Now, Log: slog.New(slog.DiscardHandler)})
}

// usageOf answers a command given no subcommand it knows: asked for help
// (-h, --help, help), the usage on stdout and success; otherwise the usage
// as the error.
func usageOf(args []string, stdout io.Writer, usage string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return errors.New(usage)
}

// runOrgDelete removes the organization of an admin and everything it owns
// (offboarding a client; removing a demo from a real data directory).
func runOrgDelete(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison org delete [flags]",
		"Deletes the organization of the admin with --email and everything it owns, in one transaction; its\n"+
			"sessions and keys stop working at once. Asks for the organization's name unless --yes.", stderr)
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	yes := fs.Bool("yes", false, "do not ask for confirmation")
	st, err := cliStore(ctx, fs, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	accounts := cliAccounts(st)
	admin, err := cliAdmin(ctx, accounts, *email)
	if err != nil {
		return err
	}
	confirm := admin.OrgName // --yes: confirmed on the command line
	if !*yes {
		fmt.Fprintf(stderr, "This deletes %q (%s) and everything it owns. Type its name to confirm: ", admin.OrgName, admin.OrgID)
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		confirm = strings.TrimRight(line, "\r\n")
	}
	operator := account.Credential{Actor: actor.Actor{Kind: actor.System, OrgID: admin.OrgID, ID: audit.CLIActor(currentUser())}}
	org, err := accounts.DeleteOrg(ctx, operator, &confirm)
	if fault.Has(err, fault.Invalid) {
		return errors.New("not confirmed: nothing was deleted")
	}
	if err != nil {
		return err
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: org.ID, Actor: audit.CLIActor(currentUser()), Action: audit.OrgDelete}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Deleted %s (%s) and everything it owned.\n", org.Name, org.ID)
	return nil
}

// runOrgSetQuota sets how much an organization's events may take on the
// appliance's disk, or puts it back on the default share (--storage-share).
func runOrgSetQuota(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison org set-quota [flags]",
		"Sets the storage quota of the organization of the admin with --email: its events are refused (507) past it.\n"+
			"A running server applies it from the next batch.", stderr)
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	quota := fs.String("quota", "", "a size such as 20GiB or 500MiB, or default for the appliance's --storage-share (required)")
	st, err := cliStore(ctx, fs, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	var bytes int64
	if *quota != "default" {
		if bytes, err = parseSize(*quota); err != nil || bytes <= 0 {
			return fmt.Errorf("--quota must be a size such as 20GiB, or default, not %q", *quota)
		}
	}
	accounts := cliAccounts(st)
	admin, err := cliAdmin(ctx, accounts, *email)
	if err != nil {
		return err
	}
	_, was, err := accounts.OrgUsage(ctx, admin.OrgID)
	if err != nil {
		return err
	}
	if err := accounts.SetStorageQuota(ctx, admin.OrgID, bytes); err != nil {
		return err
	}
	quotaText := func(set bool, n int64) string {
		if !set {
			return "default"
		}
		return strconv.FormatInt(n, 10)
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: admin.OrgID, Actor: audit.CLIActor(currentUser()), Action: audit.OrgQuota,
		Detail: map[string]string{"quota": *quota, "quota_from": quotaText(was.QuotaSet, was.Quota), "quota_to": quotaText(bytes > 0, bytes)}}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s) now has the storage quota %s\n", admin.OrgName, admin.OrgID, *quota)
	return nil
}

func runOrgSetRetention(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison org set-retention [flags]",
		"Sets how long the events and DNS telemetry of the organization of the admin with --email are kept,\n"+
			"instead of the appliance's --retention; older records are refused at ingest and pruned.\n"+
			"A running server applies it from the next batch.", stderr)
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	retention := fs.String("retention", "", "whole days such as 30d, a duration such as 720h, 0 to keep them for good, "+
		"or default for the appliance's --retention (required)")
	st, err := cliStore(ctx, fs, args, getenv)
	if err != nil {
		return err
	}
	defer st.Close()
	var keep time.Duration
	set := *retention != "default"
	if set {
		if keep, err = parseDays(*retention); err != nil || *retention == "" {
			return fmt.Errorf("--retention must be days such as 30d, 0, or default, not %q", *retention)
		}
	}
	accounts := cliAccounts(st)
	admin, err := cliAdmin(ctx, accounts, *email)
	if err != nil {
		return err
	}
	was, wasSet, err := accounts.EventRetention(ctx, admin.OrgID)
	if err != nil {
		return err
	}
	if err := accounts.SetEventRetention(ctx, admin.OrgID, keep, set); err != nil {
		return err
	}
	text := func(set bool, d time.Duration) string {
		switch {
		case !set:
			return "default"
		case d == 0:
			return "0"
		}
		return wording.Days(d)
	}
	if err := audit.Record(ctx, st, store.AuditEntry{OrgID: admin.OrgID, Actor: audit.CLIActor(currentUser()), Action: audit.OrgRetention,
		Detail: map[string]string{"retention": *retention, "retention_from": text(wasSet, was), "retention_to": text(set, keep)}}); err != nil {
		return err
	}
	how := "for " + text(set, keep)
	switch {
	case !set:
		how = "as long as the appliance's --retention says"
	case keep == 0:
		how = "for good"
	}
	fmt.Fprintf(stdout, "%s (%s) now keeps its events %s\n", admin.OrgName, admin.OrgID, how)
	return nil
}

// cliAdmin is the admin with the address, the way every admin command
// names an organization; none is an error saying so.
func cliAdmin(ctx context.Context, accounts *account.Accounts, email string) (store.User, error) {
	admin, err := accounts.AdminByEmail(ctx, email)
	if errors.Is(err, account.ErrNoSuchAdmin) {
		return store.User{}, fmt.Errorf("no admin with e-mail %q", email)
	}
	return admin, err
}
