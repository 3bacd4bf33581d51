package detection

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"garrison/sigma"
)

// The shipped archive compiles whole, and every rule keeps what the
// Detection Rule License asks: its author and a link to it.
func TestShippedCatalog(t *testing.T) {
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Rules) != 2652 {
		t.Fatalf("%d rules shipped, want 2,652", len(cat.Rules))
	}
	sets := map[string]int{}
	for _, r := range cat.Rules {
		sets[r.Set]++
		if r.Author == "" || r.ID == "" || !strings.HasPrefix(r.Link, "https://github.com/SigmaHQ/sigma/blob/"+sigmaHQCommit+"/rules/") {
			t.Errorf("%s (%s): author %q, link %q", r.Title, r.ID, r.Author, r.Link)
		}
		if a := cat.alerts[r.Rule]; a == nil || a.Author != r.Author || a.Link != r.Link {
			t.Errorf("%s: alert attribution %+v", r.ID, a)
		}
	}
	for set, want := range map[string]int{"windows.process_creation": 1183, "windows.builtin": 327, "windows.registry": 247,
		"windows.powershell": 208, "windows.file": 188, "linux.process_creation": 122, "linux.auditd": 53,
		"linux.builtin": 22, "linux.file_event": 8, "linux.network_connection": 5, "network.zeek": 21, "network.dns": 7,
		"network.fortinet": 7} {
		if sets[set] != want {
			t.Errorf("set %s holds %d rules, want %d", set, sets[set], want)
		}
	}
	if len(cat.Sets) != len(sets) {
		t.Errorf("sets %v, counted %v", cat.Sets, sets)
	}
	r, ok := cat.Rule("81bcb81b-5b1f-474b-b373-52c871aaa7b1")
	if !ok {
		t.Fatal("Stop Windows Service Via Sc.EXE is not shipped")
	}
	text, err := cat.Text(r)
	if err != nil || !bytes.HasPrefix(text, []byte("title: Stop Windows Service Via Sc.EXE\n")) {
		t.Fatalf("its text: %v %.60q", err, text)
	}
}

// The archive is SigmaHQ's trees of the sources Garrison reads as
// published: each file the same bytes, none left out.
func TestShippedArchiveIsTheTree(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sigmaData, "rules")); err != nil {
		t.Skipf("SigmaHQ's rules are not at %s (../shared/data): %v", sigmaData, err)
	}
	n := 0
	err := eachArchived(func(name string, body []byte) bool {
		n++
		want, err := os.ReadFile(filepath.Join(sigmaData, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("%s differs from the tree (%v)", name, err)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tree := range []string{"windows", "linux", "network/zeek", "network/dns", "network/fortinet"} {
		err := filepath.WalkDir(filepath.Join(sigmaData, "rules", filepath.FromSlash(tree)), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yml") {
				total++
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n != total {
		t.Errorf("%d rules archived, the trees have %d", n, total)
	}
}

func TestRuleSet(t *testing.T) {
	for name, want := range map[string]string{
		"rules/windows/process_creation/proc_creation_win_sc_stop_service.yml": "windows.process_creation",
		"rules/windows/builtin/security/win_security_susp_lsass_dump.yml":      "windows.builtin",
		"rules/windows/registry/registry_set/registry_set_x.yml":               "windows.registry",
		"rules/windows/x.yml": "windows",
		"rules/linux/builtin/clamav/lnx_clamav_relevant_message.yml":                "linux.builtin",
		"rules/network/fortinet/fortigate/fortinet_fortigate_new_admin_created.yml": "network.fortinet",
	} {
		if got := ruleSet(name); got != want {
			t.Errorf("ruleSet(%s) = %s, want %s", name, got, want)
		}
	}
}

// The engine ingest runs (the shipped catalog's) fires every regression
// folder's rule on one of its events at least, as the full rule set's does
// (a folder may hold other events of the same recording).
func TestShippedFiresRegression(t *testing.T) {
	set := needRegression(t)
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var out []*sigma.Rule
	for _, c := range set.cases {
		fired := false
		for _, e := range c.events {
			out = cat.Engine().Match(e.fields, e.sources, out[:0])
			fired = fired || slices.ContainsFunc(out, func(r *sigma.Rule) bool { return r.ID == c.ruleID })
		}
		if !fired {
			t.Errorf("%s: the shipped engine fires %s on none of its %d events", c.dir, c.ruleID, len(c.events))
		}
	}
}
