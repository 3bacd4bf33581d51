package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"garrison/handlers"
	"garrison/store"
)

func runAPIKey(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: garrison apikey create --email ADMIN_EMAIL --name NAME --scope read|write|admin [--expires-at RFC3339]")
	}
	fs := newFlagSet("garrison apikey create [flags]",
		"Creates an API key for the organization of the admin with --email and prints it.\nThe key is shown this once; only its hash is stored.", stderr)
	dataDir := fs.String("data", "./data", "data directory")
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	name := fs.String("name", "", "descriptive name of the key (required)")
	scope := fs.String("scope", "", "read, write or admin (required)")
	expiresAt := fs.String("expires-at", "", "optional expiry, RFC 3339 (for example 2027-02-01T00:00:00Z)")
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	st, err := openStore(ctx, *dataDir, time.Now)
	if err != nil {
		return err
	}
	defer st.Close()
	admin, err := st.UserByEmail(ctx, *email)
	if errors.Is(err, store.ErrNotFound) || (err == nil && admin.Role != store.RoleAdmin) {
		return fmt.Errorf("no admin with e-mail %q", *email)
	}
	if err != nil {
		return err
	}
	var expiry *string
	if *expiresAt != "" {
		expiry = expiresAt
	}
	spec, err := handlers.ParseAPIKeySpec(*name, *scope, expiry, time.Now())
	if err != nil {
		return err
	}
	k, secret, err := handlers.CreateAPIKey(ctx, st, admin.OrgID, admin.ID, spec)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "Created API key %s (%s, scope %s) for %s. It is shown only this once:\n", k.ID, k.Name, k.Scope, admin.OrgName)
	fmt.Fprintln(stdout, secret)
	return nil
}

func runOrg(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "set-plan" {
		return errors.New("usage: garrison org set-plan --email ADMIN_EMAIL --plan starter|pro|ultimate")
	}
	fs := newFlagSet("garrison org set-plan [flags]",
		"Changes the plan of the organization of the admin with --email.\nA running server applies it from the next request.", stderr)
	dataDir := fs.String("data", "./data", "data directory")
	email := fs.String("email", "", "e-mail address of an admin of the organization (required)")
	plan := fs.String("plan", "", "starter, pro or ultimate (required)")
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	if !slices.Contains(store.Plans, *plan) {
		return fmt.Errorf("--plan must be starter, pro or ultimate, not %q", *plan)
	}
	st, err := openStore(ctx, *dataDir, time.Now)
	if err != nil {
		return err
	}
	defer st.Close()
	org, err := st.SetPlanByAdmin(ctx, *email, *plan)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no admin with e-mail %q", *email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s (%s) is now on the %s plan\n", org.Name, org.ID, org.Plan)
	return nil
}
