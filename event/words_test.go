package event

import (
	"slices"
	"strings"
	"testing"
)

func TestIndexWords(t *testing.T) {
	for _, c := range []struct {
		texts []string
		want  string
	}{
		{[]string{"Malware signature Trojan.Generic.42 matched on ws-088.corp.example"},
			"malware signature trojan.generic.42 trojan generic 42 matched on ws-088.corp.example ws 088 corp example"},
		{[]string{`Failed password for "root" from 203.0.113.9 port 22 ssh2`},
			"failed password for root from 203.0.113.9 203 0 113 9 port 22 ssh2"},
		{[]string{`C:\Windows\System32\mimikatz.exe (PID 4)`, "", "2001:db8::1"},
			`c:\windows\system32\mimikatz.exe c windows system32 mimikatz exe pid 4 2001:db8::1 2001 db8 1`},
		{[]string{"disk 50% full, user=admin; again: disk"}, "disk 50 full user=admin user admin again"},
		{[]string{"ÉCHEC de connexion — ÉCHEC"}, "Échec de connexion —"},
		{[]string{"... --- ,,,", ""}, ""},
	} {
		var got []string
		IndexWords(func(w string) { got = append(got, w) }, c.texts...)
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.texts, strings.Join(got, " "), c.want)
		}
	}
	var many []string
	IndexWords(func(w string) { many = append(many, w) }, strings.Repeat("a.b ", 10)+strings.Repeat("w", 129)+" "+
		strings.TrimSpace(strings.Repeat("x ", 1))+" "+wordsOf(300))
	if len(many) != maxWordsIndexed || slices.Contains(many, strings.Repeat("w", 129)) {
		t.Errorf("%d words indexed (at most %d), the 129-byte word among them: %v", len(many), maxWordsIndexed, slices.Contains(many, strings.Repeat("w", 129)))
	}
}

func wordsOf(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(" w")
		b.WriteString(strings.Repeat("z", i%7))
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26))
	}
	return b.String()
}

func TestQueryWords(t *testing.T) {
	for q, want := range map[string][]string{
		"Trojan.Generic.42":       {"trojan.generic.42"},
		"failed  PASSWORD":        {"failed", "password"},
		`"ws-1.corp" (mimikatz)`:  {"ws-1.corp", "mimikatz"},
		"50%":                     {"50"},
		"_ .. --":                 nil,
		"host: 10.0.0.1, user=bo": {"host", "10.0.0.1", "user=bo"},
	} {
		if got := QueryWords(q); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

// Whatever the text, every word a search takes from it finds it (while
// the event holds few enough words), and no indexed word holds a space.
func FuzzIndexWords(f *testing.F) {
	for _, seed := range []string{"Trojan.Generic.42 on ws-1", `C:\x\y.exe "q"`, "a=b;c", "ÉCHEC —", "\x00\xff", "  "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		held := map[string]bool{}
		IndexWords(func(w string) {
			if w == "" || len(w) > maxWordBytes || strings.ContainsFunc(w, isSpaceOrEnclosing) || held[w] {
				t.Fatalf("indexed %q", w)
			}
			held[w] = true
		}, text)
		if len(held) >= maxWordsIndexed {
			return
		}
		for _, w := range QueryWords(text) {
			if len(w) <= maxWordBytes && !held[w] {
				t.Fatalf("%q: the search word %q is not indexed (%v)", text, w, held)
			}
		}
	})
}
