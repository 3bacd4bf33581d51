package blocklist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// dirName is the folder of the data directory holding imported lists, one
// file per category.
const dirName = "blocklists"

// Load returns the embedded lists plus every list imported into the data
// directory.
func Load(dataDir string) (*List, error) {
	l, err := Default()
	if err != nil {
		return nil, fmt.Errorf("embedded blocklist: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(dataDir, dirName, "*.txt"))
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
		if _, err := l.Import(bytes.NewReader(data), category); err != nil && !errors.Is(err, ErrNoValidDomain) {
			return nil, fmt.Errorf("blocklist %s: %w", f, err)
		}
	}
	return l, nil
}

// Save checks a list and adds it to the data directory under category, for
// Load to take in from the next start; added counts its valid domains.
func Save(dataDir, category string, data []byte) (added int, err error) {
	added, err = New().Import(bytes.NewReader(data), category)
	if err != nil {
		return 0, fmt.Errorf("list refused: %w", err)
	}
	dir := filepath.Join(dataDir, dirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(dir, category+".txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(append(bytes.TrimRight(data, "\n"), '\n')); err != nil {
		f.Close()
		return 0, fmt.Errorf("save list: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("save list: %w", err)
	}
	return added, nil
}
