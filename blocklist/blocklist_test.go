package blocklist

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// entries counts the lines of an embedded list that are neither blank nor
// comments.
func entries(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" && line[0] != '#' {
			n++
		}
	}
	return n
}

func mustDefault(tb testing.TB) *List {
	tb.Helper()
	l, err := Default()
	if err != nil {
		tb.Fatalf("Default: %v", err)
	}
	return l
}

func TestDefaultCounts(t *testing.T) {
	l := mustDefault(t)
	const wantTrackers = 2986 // the domains of shared/data/netsec/tracker_blocklist_subset.txt
	if n := entries(trackersList); n != wantTrackers {
		t.Fatalf("embedded tracker list has %d entries, want %d", n, wantTrackers)
	}
	wantMalware := entries(malwareList)
	got := l.Counts()
	if got[CategoryTracker] != wantTrackers || got[CategoryMalware] != wantMalware || len(got) != 2 {
		t.Errorf("Counts = %v, want %s:%d %s:%d", got, CategoryTracker, wantTrackers, CategoryMalware, wantMalware)
	}
	if l.Len() != wantTrackers+wantMalware {
		t.Errorf("Len = %d, want %d", l.Len(), wantTrackers+wantMalware)
	}
}

// The embedded tracker list must stay a byte-for-byte copy of the shared file.
func TestEmbeddedTrackersMatchSharedFile(t *testing.T) {
	shared, err := os.ReadFile("../../shared/data/netsec/tracker_blocklist_subset.txt")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("SKIPPED: the tracker list this embedded copy must equal is read from ../../shared/data, a data tree beside the " +
			"repository that this checkout lacks")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, []byte(trackersList)) {
		t.Error("lists/trackers.txt differs from shared/data/netsec/tracker_blocklist_subset.txt")
	}
}

func TestDefaultMatch(t *testing.T) {
	l := mustDefault(t)
	tests := []struct {
		domain string
		want   string // "" for no match
	}{
		{"bat.bing.com", CategoryTracker},             // listed
		{"pixel.bat.bing.com", CategoryTracker},       // child of a listed domain
		{"bing.com", ""},                              // parent of a listed domain
		{"www.bing.com", ""},                          // sibling
		{"google-analytics.com", CategoryTracker},     // listed
		{"www.google-analytics.com", CategoryTracker}, // seen in the zeek sample
		{"pagead46.l.doubleclick.net", CategoryTracker},
		{"sb.scorecardresearch.com", CategoryTracker},
		{"malware.testcategory.com", CategoryMalware},
		{"a.b.malware.testcategory.com", CategoryMalware},
		{"testcategory.com", ""},
		{"malware.wicar.org", CategoryMalware},
		{"wicar.org", ""},
		{"test-malware.testpanw.com", CategoryMalware},
		{"example.com", ""},
		{"com", ""},
	}
	for _, tt := range tests {
		got, ok := l.Match(tt.domain)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", tt.domain, got, ok, tt.want)
		}
	}
}

func TestMatchNormalisation(t *testing.T) {
	l := New()
	if _, err := l.Import(strings.NewReader("example.com\nfoo.bar.example.org\n"), "test"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a.", 120) + "example.com" // 251 bytes
	tests := []struct {
		domain string
		ok     bool
	}{
		{"example.com", true},
		{"EXAMPLE.COM", true},
		{"Ads.Example.Com", true},
		{"example.com.", true},
		{"ads.example.com.", true},
		{"  example.com\t", true},
		{"\n Ads.EXAMPLE.com. \r\n", true},
		{long, true},
		{long + ".", true},
		{"xx" + long + ".", true}, // 253 bytes without the dot
		{"xxx" + long, false},     // 254 bytes
		{"example.com..", false},
		{".example.com", true}, // an empty first label is not looked up
		{"example.org", false},
		{"bar.example.org", false}, // parent of a listed domain
		{"foo.bar.example.org", true},
		{"FOO.BAR.EXAMPLE.ORG.", true},
		{"", false},
		{" ", false},
		{".", false},
		{"com", false},
		{"com.", false},
		{"example", false},
		{"exampl.com", false},
		{"xexample.com", false}, // a suffix, but not at a label boundary
		{"example.com.evil.net", false},
	}
	for _, tt := range tests {
		cat, ok := l.Match(tt.domain)
		if ok != tt.ok || (ok && cat != "test") {
			t.Errorf("Match(%q) = %q, %v; want ok=%v", tt.domain, cat, ok, tt.ok)
		}
	}
}

func TestIPLiteralsNeverMatch(t *testing.T) {
	l := New()
	// IP literals are refused as entries...
	for _, in := range []string{"1.2.3.4", "10.0.0.1.", "0.0.0.0 192.168.1.1", "::1", "||1.2.3.4^", "3.4"} {
		if n, err := l.Import(strings.NewReader(in), "test"); !errors.Is(err, ErrNoValidDomain) || n != 0 {
			t.Errorf("Import(%q) = %d, %v; want ErrNoValidDomain", in, n, err)
		}
	}
	// ...and never match, whatever is listed.
	if _, err := l.Import(strings.NewReader("in-addr.arpa\n2.3.4.example\n"), "test"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"1.2.3.4", "1.2.3.4.", " 10.0.0.1 ", "::1", "[::1]", "2001:db8::1", "fe80::1%eth0", "::ffff:1.2.3.4"} {
		if cat, ok := l.Match(d); ok {
			t.Errorf("Match(%q) = %q, true; want no match", d, cat)
		}
	}
	// A reverse-lookup name is a domain name, not an IP literal.
	if _, ok := l.Match("4.3.2.1.in-addr.arpa"); !ok {
		t.Error("Match(4.3.2.1.in-addr.arpa) = false; want a match on in-addr.arpa")
	}
}

func TestImportFormats(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		added   int
		match   []string
		nomatch []string
	}{
		{
			name:  "plain",
			input: "a.example\nb.example\n",
			added: 2, match: []string{"a.example", "x.b.example"},
		},
		{
			name:  "plain, no final newline, CRLF",
			input: "a.example\r\nb.example",
			added: 2, match: []string{"a.example", "b.example"},
		},
		{
			name:    "hosts 0.0.0.0, several names",
			input:   "0.0.0.0 a.example b.example\t c.example\n",
			added:   3,
			match:   []string{"a.example", "b.example", "c.example"},
			nomatch: []string{"0.0.0.0"},
		},
		{
			name:  "hosts loopback and IPv6 sinkholes",
			input: "127.0.0.1 a.example\n:: b.example\n::1 c.example\n",
			added: 3, match: []string{"a.example", "b.example", "c.example"},
		},
		{
			name: "hosts boilerplate is ignored",
			input: "127.0.0.1 localhost\n127.0.0.1 localhost.localdomain\n255.255.255.255 broadcasthost\n" +
				"::1 localhost ip6-localhost ip6-loopback\nfe80::1%lo0 localhost\nff02::1 ip6-allnodes\n" +
				"0.0.0.0 0.0.0.0\n0.0.0.0 a.example\n",
			added:   1,
			match:   []string{"a.example"},
			nomatch: []string{"localhost.localdomain"},
		},
		{
			name:    "hosts real mapping is not a block",
			input:   "93.184.215.14 real.example\n0.0.0.0 a.example\n",
			added:   1,
			match:   []string{"a.example"},
			nomatch: []string{"real.example"},
		},
		{
			name: "adblock",
			input: "[Adblock Plus 2.0]\n! Title: test\n||a.example^\n||b.example^$third-party\n" +
				"@@||c.example^\n||d.example/path^\nexample.net##.banner\n||*.e.example^\n",
			added:   1,
			match:   []string{"a.example", "www.a.example"},
			nomatch: []string{"b.example", "c.example", "d.example", "example.net", "e.example"},
		},
		{
			name: "comments and blank lines",
			input: "# comment\n! adblock comment\n\n   \n  # indented comment\n" +
				"a.example # trailing comment\n0.0.0.0 b.example\t# tab comment\n#c.example\n",
			added:   2,
			match:   []string{"a.example", "b.example"},
			nomatch: []string{"c.example"},
		},
		{
			name:  "case, trailing dot and duplicates",
			input: "A.Example\na.example.\n||A.EXAMPLE.^\n0.0.0.0 a.example a.Example\n",
			added: 1, match: []string{"a.example"},
		},
		{
			name:  "underscores and hyphens",
			input: "_dmarc.x-y.example\n",
			added: 1, match: []string{"_dmarc.x-y.example"},
		},
		{
			name: "invalid lines are skipped",
			input: "com\n-\nhttp://a.example/\nbad name.example extra\nb..example\n.c.example\n" +
				"d.example..\nü.example\n" + strings.Repeat("x", 64) + ".example\n" +
				"*.wild.example\nok.example\n0.0.0.0 ok2.example bad_name!.example\n",
			added:   2,
			match:   []string{"ok.example", "ok2.example"},
			nomatch: []string{"a.example", "c.example", "d.example", "wild.example"},
		},
		{
			name: "label and name lengths at the limits",
			input: strings.Repeat("x", 63) + ".example\n" + // 63-byte label
				strings.Repeat("a.", 123) + "example\n" + // 253 bytes
				strings.Repeat("a.", 124) + "example\n", // 255 bytes: skipped
			added: 2,
			match: []string{strings.Repeat("x", 63) + ".example", strings.Repeat("a.", 123) + "example"},
		},
		{
			name:  "only comments",
			input: "# nothing\n! here\n\n127.0.0.1 localhost\n",
			added: 0,
		},
		{
			name:  "empty",
			input: "",
			added: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New()
			added, err := l.Import(strings.NewReader(tt.input), "test")
			if err != nil || added != tt.added {
				t.Fatalf("Import = %d, %v; want %d, nil", added, err, tt.added)
			}
			if l.Len() != tt.added {
				t.Errorf("Len = %d, want %d", l.Len(), tt.added)
			}
			for _, d := range tt.match {
				if cat, ok := l.Match(d); !ok || cat != "test" {
					t.Errorf("Match(%q) = %q, %v; want test, true", d, cat, ok)
				}
			}
			for _, d := range tt.nomatch {
				if cat, ok := l.Match(d); ok {
					t.Errorf("Match(%q) = %q, true; want no match", d, cat)
				}
			}
		})
	}
}

func TestImportNoValidDomain(t *testing.T) {
	tests := []struct {
		input    string
		wantLine string // in the error message
	}{
		{"# header\n\nnot a domain\ncom\n", `line 3: "not a domain"`},
		{"||a.example^$important\n", `line 1: "||a.example^$important"`},
		{"\n\n1.2.3.4\n", `line 3: "1.2.3.4"`},
		{strings.Repeat("y", 300), `line 1: "` + strings.Repeat("y", 70) + `… [truncated from 300 bytes]"`},
	}
	for _, tt := range tests {
		l := New()
		added, err := l.Import(strings.NewReader(tt.input), "test")
		if !errors.Is(err, ErrNoValidDomain) || added != 0 {
			t.Errorf("Import(%.20q) = %d, %v; want ErrNoValidDomain", tt.input, added, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantLine) {
			t.Errorf("Import(%.20q) error %q does not contain %s", tt.input, err, tt.wantLine)
		}
		if l.Len() != 0 {
			t.Errorf("Len = %d after a failed import", l.Len())
		}
	}
}

func TestImportCategory(t *testing.T) {
	tests := []struct {
		category string
		ok       bool
	}{
		{"tracker", true},
		{"malware", true},
		{"a", true},
		{"ad-tech", true},
		{"c2", true},
		{"x" + strings.Repeat("9", 31), true},
		{"", false},
		{"Tracker", false},
		{"1abc", false},
		{"-abc", false},
		{"ad_tech", false},
		{"ad tech", false},
		{"tracker ", false},
		{"x" + strings.Repeat("9", 32), false},
		{"trackér", false},
	}
	for _, tt := range tests {
		l := New()
		_, err := l.Import(strings.NewReader("a.example\n"), tt.category)
		if tt.ok && err != nil {
			t.Errorf("Import(category %q) = %v; want nil", tt.category, err)
		}
		if !tt.ok && (!errors.Is(err, ErrInvalidCategory) || l.Len() != 0) {
			t.Errorf("Import(category %q) = %v, Len %d; want ErrInvalidCategory, 0", tt.category, err, l.Len())
		}
	}
}

func TestImportKeepsFirstCategory(t *testing.T) {
	l := New()
	steps := []struct {
		input, category string
		added           int
	}{
		{"a.example\nb.example\n", CategoryMalware, 2},
		{"b.example\nc.example\n", CategoryTracker, 1},
		{"a.example\n", CategoryTracker, 0},
	}
	for i, s := range steps {
		added, err := l.Import(strings.NewReader(s.input), s.category)
		if err != nil || added != s.added {
			t.Fatalf("step %d: Import = %d, %v; want %d, nil", i, added, err, s.added)
		}
	}
	want := map[string]string{"a.example": CategoryMalware, "b.example": CategoryMalware, "c.example": CategoryTracker}
	for d, w := range want {
		if got, _ := l.Match(d); got != w {
			t.Errorf("Match(%q) = %q, want %q", d, got, w)
		}
	}
	if c := l.Counts(); c[CategoryMalware] != 2 || c[CategoryTracker] != 1 {
		t.Errorf("Counts = %v", c)
	}
	// Counts is a copy.
	l.Counts()[CategoryMalware] = 99
	if c := l.Counts(); c[CategoryMalware] != 2 {
		t.Errorf("Counts changed through a returned map: %v", c)
	}
}

func TestMoreSpecificEntryWins(t *testing.T) {
	l := New()
	if _, err := l.Import(strings.NewReader("example.com\n"), CategoryTracker); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Import(strings.NewReader("bad.example.com\n"), CategoryMalware); err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]string{
		"example.com": CategoryTracker, "www.example.com": CategoryTracker,
		"bad.example.com": CategoryMalware, "x.bad.example.com": CategoryMalware,
	} {
		if got, _ := l.Match(d); got != want {
			t.Errorf("Match(%q) = %q, want %q", d, got, want)
		}
	}
}

func TestImportCap(t *testing.T) {
	if New().max() != MaxDomains || MaxDomains != 2_000_000 {
		t.Fatalf("default cap = %d, want 2,000,000", New().max())
	}
	l := New()
	l.limit = 5
	steps := []struct {
		name    string
		input   string
		added   int
		tooMany bool
		wantLen int
	}{
		{"under the cap", "a.example\nb.example\nc.example\n", 3, false, 3},
		{"over the cap: nothing added", "d.example\ne.example\nf.example\n", 0, true, 3},
		{"duplicates do not count", "a.example\nb.example\nc.example\nd.example\ne.example\n", 2, false, 5},
		{"at the cap, nothing new", "a.example\n", 0, false, 5},
		{"one more", "f.example\n", 0, true, 5},
		{"the input alone is over the cap", "1.example\n2.example\n3.example\n4.example\n5.example\n6.example\n", 0, true, 5},
	}
	for _, s := range steps {
		added, err := l.Import(strings.NewReader(s.input), "test")
		if errors.Is(err, ErrTooManyDomains) != s.tooMany || (!s.tooMany && err != nil) || added != s.added {
			t.Fatalf("%s: Import = %d, %v; want %d, tooMany=%v", s.name, added, err, s.added, s.tooMany)
		}
		if l.Len() != s.wantLen || l.Counts()["test"] != s.wantLen {
			t.Fatalf("%s: Len = %d, Counts = %v; want %d", s.name, l.Len(), l.Counts(), s.wantLen)
		}
	}
	if _, ok := l.Match("f.example"); ok {
		t.Error("a domain of a refused import matches")
	}
}

// failingReader yields its text, then an error.
type failingReader struct {
	text string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

func TestImportIsAtomicOnReadError(t *testing.T) {
	l := New()
	boom := errors.New("connection reset")
	_, err := l.Import(&failingReader{text: "a.example\nb.example\n", err: boom}, "test")
	if !errors.Is(err, boom) {
		t.Fatalf("Import = %v; want the reader's error", err)
	}
	_, err = l.Import(strings.NewReader("a.example\n"+strings.Repeat("x", maxLine+1)+"\n"), "test")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Import with an over-long line = %v; want an error naming line 2", err)
	}
	if l.Len() != 0 {
		t.Errorf("Len = %d after failed imports, want 0", l.Len())
	}
}

func TestZeroValueList(t *testing.T) {
	var l List
	if _, ok := l.Match("a.example"); ok || l.Len() != 0 || len(l.Counts()) != 0 {
		t.Fatal("zero List is not empty")
	}
	if n, err := l.Import(strings.NewReader("a.example"), "test"); n != 1 || err != nil {
		t.Fatalf("Import = %d, %v", n, err)
	}
	if _, ok := l.Match("www.a.example"); !ok {
		t.Error("no match after Import")
	}
}

// Readers must see each import whole: once the first domain of an import
// matches, so must the second (imports only add).
func TestConcurrentMatchDuringImport(t *testing.T) {
	l := mustDefault(t)
	const imports = 200
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	report := func(msg string) {
		select {
		case errs <- msg:
		default:
		}
	}
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for i := range imports {
					_, okA := l.Match(fmt.Sprintf("www.a%d.example", i))
					_, okB := l.Match(fmt.Sprintf("b%d.example", i))
					if okA && !okB {
						report(fmt.Sprintf("import %d seen half done", i))
						return
					}
				}
				if cat, ok := l.Match("x.bat.bing.com"); !ok || cat != CategoryTracker {
					report("embedded entry lost")
					return
				}
				l.Len()
				l.Counts()
			}
		})
	}
	for i := range imports {
		in := fmt.Sprintf("a%d.example\n0.0.0.0 b%d.example\n", i, i)
		if _, err := l.Import(strings.NewReader(in), fmt.Sprintf("c%d", i%3)); err != nil {
			t.Error(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if want := entries(trackersList) + entries(malwareList) + 2*imports; l.Len() != want {
		t.Errorf("Len = %d, want %d", l.Len(), want)
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	l := mustDefault(t)
	for _, d := range []string{"pixel.bat.bing.com", " Pixel.BAT.bing.com. ", "www.example.org", "1.2.3.4"} {
		if n := testing.AllocsPerRun(100, func() { l.Match(d) }); n != 0 {
			t.Errorf("Match(%q) allocates %v times", d, n)
		}
	}
}

func FuzzImport(f *testing.F) {
	for _, s := range []string{
		"a.example\n", "0.0.0.0 a.example b.example\n", "||a.example^\n", "# c\n!c\n",
		"1.2.3.4\n", "A.EXAMPLE.\n", "x y z\n", "||^\n", "0.0.0.0\n", ". .\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		l := New()
		added, err := l.Import(strings.NewReader(input), "test")
		if err != nil {
			if added != 0 || l.Len() != 0 {
				t.Fatalf("failed Import added %d (Len %d)", added, l.Len())
			}
			return
		}
		if added != l.Len() {
			t.Fatalf("added %d, Len %d", added, l.Len())
		}
		// Every added domain is valid, lower case and matches under its category.
		l.mu.RLock()
		stored := slices.Collect(maps.Keys(l.domains))
		l.mu.RUnlock()
		for _, d := range stored {
			if !validName([]byte(d)) || d != strings.ToLower(d) {
				t.Fatalf("stored invalid domain %q", d)
			}
			if cat, ok := l.Match(d); !ok || cat != "test" {
				t.Fatalf("Match(%q) = %q, %v", d, cat, ok)
			}
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	l := mustDefault(b)
	for _, bm := range []struct{ name, domain string }{
		{"hit-subdomain", "pagead46.l.doubleclick.net"},
		{"miss", "www.wikipedia.org"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.Match(bm.domain)
			}
		})
	}
}
