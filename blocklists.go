package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"garrison/blocklist"
)

// blocklistDir holds imported lists, one file per category.
const blocklistDir = "blocklists"

// loadBlocklist returns the embedded lists plus every list imported into the
// data directory.
func loadBlocklist(dataDir string) (*blocklist.List, error) {
	l, err := blocklist.Default()
	if err != nil {
		return nil, fmt.Errorf("embedded blocklist: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(dataDir, blocklistDir, "*.txt"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("blocklist %s: %w", f, err)
		}
		category := strings.TrimSuffix(filepath.Base(f), ".txt")
		if _, err := l.Import(bytes.NewReader(data), category); err != nil && !errors.Is(err, blocklist.ErrNoValidDomain) {
			return nil, fmt.Errorf("blocklist %s: %w", f, err)
		}
	}
	return l, nil
}

func runBlocklist(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		return errors.New("usage: garrison blocklist import --category NAME --file PATH [--data DIR]")
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
	added, err := blocklist.New().Import(bytes.NewReader(data), *category)
	if err != nil {
		return fmt.Errorf("list refused: %w", err)
	}
	dir := filepath.Join(*dataDir, blocklistDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, *category+".txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(bytes.TrimRight(data, "\n"), '\n')); err != nil {
		f.Close()
		return fmt.Errorf("save list: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save list: %w", err)
	}
	fmt.Fprintf(stdout, "Imported %d domains as %s; a running server uses them from its next start.\n", added, *category)
	return nil
}
