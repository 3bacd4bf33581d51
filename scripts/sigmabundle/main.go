// Command sigmabundle packs the SigmaHQ rules of the sources Garrison
// reads (shippedTrees), unmodified, into the archive the binary embeds
// (detection/sigmahq/rules.tar.gz):
//
//	go run ./scripts/sigmabundle ../shared/data/detection/sigma detection/sigmahq/rules.tar.gz
//
// The archive is the same bytes for the same rules (sorted, no times), so
// a rebuild from an unchanged tree changes nothing in git.
package main

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sigmabundle SIGMA_DIR OUT.tar.gz")
		os.Exit(2)
	}
	if err := pack(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "sigmabundle:", err)
		os.Exit(1)
	}
}

// shippedTrees are the trees of SigmaHQ's rules/ whose log sources Garrison
// reads: Windows events, Linux syslog, auditd and Sysmon for Linux, Zeek
// logs, DNS queries and FortiGate's key=value lines.
var shippedTrees = []string{"windows", "linux", "network/zeek", "network/dns", "network/fortinet"}

func pack(sigmaDir, out string) error {
	var paths []string
	for _, tree := range shippedTrees {
		root := filepath.Join(sigmaDir, "rules", filepath.FromSlash(tree))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yml") {
				return err
			}
			rel, err := filepath.Rel(sigmaDir, path)
			paths = append(paths, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return fmt.Errorf("read %s: %w", root, err)
		}
	}
	sort.Strings(paths)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, p := range paths {
		body, err := os.ReadFile(filepath.Join(sigmaDir, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if _, err := tw.Write(body); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Printf("%d rules into %s\n", len(paths), out)
	return f.Close()
}
