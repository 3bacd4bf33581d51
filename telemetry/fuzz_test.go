package telemetry

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"garrison/event"
)

// FuzzParse feeds every format outside input: nothing panics, and every
// record it gives is whole and bounded.
func FuzzParse(f *testing.F) {
	seeds := map[string]string{
		FormatWazuh:   "testdata/wazuh/*.jsonl",
		FormatWindows: "testdata/windows/*.jsonl",
		FormatZeek:    "testdata/zeek/*/*.log",
		FormatSyslog:  "testdata/syslog/*/*.log",
	}
	for format, pattern := range seeds {
		files, _ := filepath.Glob(pattern)
		more, _ := filepath.Glob(filepath.Join(filepath.Dir(pattern), "*", "*.log"))
		for _, name := range append(files, more...) {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(slices.Index(Formats, format)), b[:min(len(b), 4096)])
		}
	}
	for _, line := range []string{ // auditd records, with hex arguments and the ENRICHED fields
		`type=EXECVE msg=audit(1684329817.579:2995): argc=3 a0="sh" a1="-c" a2=6563686F20226869220A`,
		"node=web1 type=SYSCALL msg=audit(1684329817.579:2996): syscall=59 comm=\"perl\"\x1dSYSCALL=execve UID=\"root\"",
	} {
		f.Add(uint8(slices.Index(Formats, FormatSyslog)), []byte(line))
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		format := Formats[int(which)%len(Formats)]
		res, err := Parse(format, body, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records)+len(res.Problems) > MaxRecords+1 {
			t.Fatalf("%d records and %d problems", len(res.Records), len(res.Problems))
		}
		for _, r := range res.Records {
			if len(r.Original) > event.MaxOriginal || !utf8.ValidString(r.Original) || !utf8.ValidString(r.Message) ||
				!event.ValidType(r.Type) || !r.Severity.Valid() || r.Asset == "" || r.Line < 1 ||
				len(r.Fields.CommandLine) > event.MaxCommandLine || len(r.Fields.User) > event.MaxFieldText {
				t.Fatalf("bad record %+v", r)
			}
		}
	})
}
