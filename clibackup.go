package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"garrison/app"
	"garrison/store"
)

// backupFiles are what a data directory holds besides the database: the
// session signing secret (sessions issued before a backup verify after a
// restore), the self-signed certificate and the imported blocklists.
var backupFiles = []string{secretFileName, selfSignedCert, selfSignedKey, "blocklists"}

const backupManifest = "BACKUP.txt"

// errPostgresBackup is garrison backup's answer for a cluster: PostgreSQL's
// own tools take a consistent snapshot of a live database, and its
// replication and point-in-time recovery go further than a copy could.
var errPostgresBackup = errors.New("a cluster's database is PostgreSQL's to back up: run pg_dump --format=custom --file=garrison.dump " +
	"on its URL (one consistent snapshot while the nodes serve; pg_restore restores it), or use its continuous archiving " +
	"for point-in-time recovery; back up one node's data directory too (jwt-secret, TLS files, blocklists)")

// runBackup copies a data directory, online: the database through SQLite's
// VACUUM INTO (one consistent snapshot, never a file copy of a live WAL
// database), then the other files.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := newFlagSet("garrison backup [--data DIR] OUT",
		"Writes a consistent backup of the data directory into the new directory OUT while the server runs:\n"+
			"the database (SQLite VACUUM INTO), the session signing secret, the self-signed certificate and the\n"+
			"blocklists, with a manifest of SHA-256 sums. Restore it with garrison restore.", stderr)
	dataDir := fset.String("data", "./data", "data directory")
	database := fset.String("database", "", "a cluster's PostgreSQL database: refused, pg_dump backs it up")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if v := getenv(envName("data")); v != "" && !flagGiven(fset, "data") {
		*dataDir = v
	}
	if v := getenv(envName("database")); v != "" && !flagGiven(fset, "database") {
		*database = v
	}
	if *database != "" {
		return errPostgresBackup
	}
	if fset.NArg() != 1 {
		return errors.New("usage: garrison backup [--data DIR] OUT")
	}
	out := fset.Arg(0)
	if err := existingData(*dataDir, false); err != nil {
		return err
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists: a backup goes into a new directory", out)
	}
	start := time.Now()
	if err := os.MkdirAll(out, 0o700); err != nil {
		return fmt.Errorf("create the backup directory: %w", err)
	}
	st, err := app.OpenStore(ctx, *dataDir, schemaSQL, store.Config{Now: time.Now})
	if err != nil {
		return err
	}
	err = st.Backup(ctx, filepath.Join(out, "garrison.db"))
	st.Close()
	if err != nil {
		os.RemoveAll(out)
		return err
	}
	for _, name := range backupFiles {
		if err := copyTree(filepath.Join(*dataDir, name), filepath.Join(out, name)); err != nil {
			os.RemoveAll(out)
			return err
		}
	}
	manifest, size, err := manifestOf(out)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("Garrison backup of %s, %s, by %s\n", *dataDir, time.Now().UTC().Format(time.RFC3339), versionLine())
	if err := os.WriteFile(filepath.Join(out, backupManifest), []byte(header+manifest), 0o600); err != nil {
		return fmt.Errorf("write the manifest: %w", err)
	}
	fmt.Fprintf(stdout, "Backed up %s to %s: %.1f MiB in %s.\n", *dataDir, out, float64(size)/(1<<20), time.Since(start).Round(time.Millisecond))
	return nil
}

// runRestore makes a data directory from a backup. It never overwrites one
// that holds a database: stop the server and move the old directory away
// first.
func runRestore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := newFlagSet("garrison restore [--data DIR] IN",
		"Restores the backup directory IN (made by garrison backup) into the data directory, which must not hold a\n"+
			"database: stop the server and move the old data directory away first. The manifest's sums are checked.", stderr)
	dataDir := fset.String("data", "./data", "data directory to restore into")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if v := getenv(envName("data")); v != "" && !flagGiven(fset, "data") {
		*dataDir = v
	}
	if fset.NArg() != 1 {
		return errors.New("usage: garrison restore [--data DIR] IN")
	}
	in := fset.Arg(0)
	if _, err := os.Stat(filepath.Join(*dataDir, "garrison.db")); err == nil {
		return fmt.Errorf("%s holds a database already (perhaps in use): stop the server and move that directory away, then restore", *dataDir)
	}
	if err := verifyManifest(in); err != nil {
		return err
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return fmt.Errorf("create the data directory: %w", err)
	}
	for _, name := range append([]string{"garrison.db"}, backupFiles...) {
		if err := copyTree(filepath.Join(in, name), filepath.Join(*dataDir, name)); err != nil {
			return err
		}
	}
	// Opening it once runs any migration a newer binary brings.
	st, err := app.OpenStore(ctx, *dataDir, schemaSQL, store.Config{Now: time.Now})
	if err != nil {
		return fmt.Errorf("open the restored database: %w", err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Restored %s into %s; start the server with --data %s.\n", in, *dataDir, *dataDir)
	return nil
}

// copyTree copies a file or a directory of files (mode 0600/0700); a
// missing source is skipped.
func copyTree(src, dst string) error {
	info, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return copyFile(src, dst)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// manifestOf lists every file of dir with its SHA-256 and size.
func manifestOf(dir string) (string, int64, error) {
	var b strings.Builder
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == backupManifest {
			return err
		}
		sum, n, err := sha256File(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s  %d  %s\n", sum, n, filepath.ToSlash(rel))
		total += n
		return nil
	})
	return b.String(), total, err
}

func sha256File(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// verifyManifest checks a backup's files against its manifest.
func verifyManifest(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, backupManifest))
	if err != nil {
		return fmt.Errorf("%s is not a Garrison backup (no %s): %w", dir, backupManifest, err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) < 2 {
		return fmt.Errorf("%s: the manifest lists no files", dir)
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 3 || strings.Contains(f[2], "..") {
			return fmt.Errorf("%s: a malformed manifest line %q", dir, line)
		}
		sum, _, err := sha256File(filepath.Join(dir, filepath.FromSlash(f[2])))
		if err != nil || sum != f[0] {
			return fmt.Errorf("%s: %s does not match the manifest (damaged or changed backup)", dir, f[2])
		}
	}
	return nil
}
