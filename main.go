// Command garrison is a self-hosted security-operations API for managed
// service providers: one binary, one SQLite file, HTTPS by default.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

//go:embed schema.sql
var schemaSQL string

//go:embed docs/openapi.json
var openAPIDocument []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "garrison:", err)
		os.Exit(1)
	}
}

const usage = `Garrison: a self-hosted security-operations API for MSPs.

Usage:
  garrison serve [flags]            run the API server (garrison serve --help)
  garrison apikey create [flags]    create an API key for an admin's organization
  garrison org set-plan [flags]     change an organization's plan
  garrison org create [flags]       create an organization and its admin (for invite-only or closed registration)
  garrison org delete [flags]       delete an organization and everything it owns
  garrison demo [--data DIR]        create a demo organization with 30 days of activity
  garrison blocklist import [flags] add a DNS blocklist under a category
  garrison intel import FILE|DIR …  feed the vulnerability intelligence store (NVD, CVE 5, KEV, EPSS, ATT&CK)
  garrison backup [--data DIR] OUT  a consistent online backup into the new directory OUT
  garrison restore [--data DIR] IN  restore a backup into a data directory without a database
  garrison migrate --database URL   migrate a cluster's PostgreSQL database, once per upgrade
  garrison copy --from sqlite:DIR --to URL  move an appliance's data into a cluster's new database
  garrison version                  the build's version
  garrison help                     this text

Every flag can also be set with an environment variable: --jwt-ttl is
GARRISON_JWT_TTL. Run any command with --help for its flags.
`

// run is the whole program, with its surroundings passed in so tests can
// start it like a user would.
// stdin is what commands read (org create --password-stdin); tests set it.
var stdin io.Reader = os.Stdin

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServeConfig(args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, appOptions{}, stderr, nil)
	case "apikey":
		return runAPIKey(ctx, args[1:], getenv, stdout, stderr)
	case "org":
		return runOrg(ctx, args[1:], getenv, stdin, stdout, stderr)
	case "blocklist":
		return runBlocklist(ctx, args[1:], getenv, stdout, stderr)
	case "demo":
		return runDemoCommand(ctx, args[1:], getenv, stdout, stderr)
	case "intel":
		return runIntel(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return runBackup(ctx, args[1:], getenv, stdout, stderr)
	case "restore":
		return runRestore(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], getenv, stdout, stderr)
	case "copy":
		return runCopy(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, versionLine())
		return nil
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
