package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"garrison/app"
	"garrison/store"
)

// runMigrate brings a cluster's PostgreSQL database (or a data directory's
// SQLite file) to this release's schema: once for the cluster, before its
// nodes of this release serve.
func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison migrate --database postgres://…",
		"Brings the cluster's PostgreSQL database to this release's schema, each migration in its own transaction.\n"+
			"Run it once per upgrade, from any one machine: the nodes of a cluster do not migrate, they wait for it\n"+
			"(and refuse a database newer than their release). With --data instead, migrates that SQLite file.", stderr)
	database := fs.String("database", "", "PostgreSQL URL of the cluster's database")
	dataDir := fs.String("data", "", "data directory whose SQLite file to migrate (instead of --database)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch {
	case store.IsPostgres(*database):
		before, latest, err := store.PostgresVersion(ctx, *database, schemaSQL)
		if err != nil {
			return err
		}
		after, err := store.MigratePostgres(ctx, *database, schemaSQL)
		if err != nil {
			return err
		}
		if before == after {
			fmt.Fprintf(stdout, "The database is at migration %d, this release's: nothing to do.\n", after)
			return nil
		}
		fmt.Fprintf(stdout, "Migrated the database from migration %d to %d (of %d).\n", before, after, latest)
		return nil
	case *database != "":
		return errors.New("--database must be a postgres:// or postgresql:// URL")
	case *dataDir != "":
		if err := existingData(*dataDir, false); err != nil {
			return err
		}
		st, err := app.OpenStore(ctx, *dataDir, schemaSQL, store.Config{Now: time.Now})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "The SQLite database in %s is at this release's schema.\n", *dataDir)
		return st.Close()
	}
	return errors.New("usage: garrison migrate --database postgres://… (or --data DIR)")
}

// runCopy moves an appliance's data into a cluster's new database.
func runCopy(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("garrison copy --from sqlite:DIR --to postgres://…",
		"Copies the appliance's data directory DIR (stopped) into a new, empty PostgreSQL database, in one\n"+
			"transaction, then reads every table back and checks its row count and checksum. The data directory is\n"+
			"left as it is. Each node of the cluster needs DIR's jwt-secret (and TLS files and blocklists): copy them.", stderr)
	from := fs.String("from", "", "sqlite:DIR, the appliance's data directory")
	to := fs.String("to", "", "postgres:// URL of the cluster's new database")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	dir, ok := strings.CutPrefix(*from, "sqlite:")
	if !ok || dir == "" || !store.IsPostgres(*to) {
		return errors.New("usage: garrison copy --from sqlite:DIR --to postgres://…")
	}
	if err := existingData(dir, false); err != nil {
		return err
	}
	// The appliance must be stopped: what it writes during the copy would
	// not be in the cluster.
	unlock, err := app.LockDataDir(dir)
	if err != nil {
		return fmt.Errorf("stop the server using %s first: %w", dir, err)
	}
	defer unlock()
	st, err := app.OpenStore(ctx, dir, schemaSQL, store.Config{Now: time.Now})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Fold(ctx); err != nil {
		return err
	}
	start := time.Now()
	var rows int64
	copied, err := st.CopyToPostgres(ctx, *to, schemaSQL, func(c store.TableCopy) {
		rows += c.Rows
		if c.Rows > 0 {
			fmt.Fprintf(stderr, "copied %-32s %10d rows  checksum %016x\n", c.Table, c.Rows, c.Sum)
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Copied %d tables, %d rows, from %s in %s; every table's count and checksum match.\n",
		len(copied), rows, dir, time.Since(start).Round(time.Millisecond))
	return nil
}
