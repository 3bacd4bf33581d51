package sigma

import (
	"fmt"
	"testing"
)

func TestNeedles(t *testing.T) {
	cases := []struct {
		name, detection, want string
	}{
		{"endswith", "  sel:\n    Image|endswith: '\\CMD.exe'\n  condition: sel", `[{Image \cmd.exe}]`},
		{"any of values", "  sel:\n    Image|endswith:\n      - '\\a.exe'\n      - '\\b.exe'\n  condition: sel", `[{Image \a.exe} {Image \b.exe}]`},
		{"all of values: the longest", "  sel:\n    CommandLine|contains|all:\n      - ' -a '\n      - 'invoke-thing'\n  condition: sel", `[{CommandLine invoke-thing}]`},
		{"map: the field of longest needles", "  sel:\n    Image|endswith: '\\net.exe'\n    CommandLine|contains: ' user '\n  condition: sel", `[{Image \net.exe}]`},
		{"and not: the and's", "  sel:\n    Image|endswith: '\\net.exe'\n  filter:\n    User: 'system'\n  condition: sel and not filter", `[{Image \net.exe}]`},
		{"or: both", "  a:\n    X: 'aaa'\n  b:\n    Y: 'bbb'\n  condition: a or b", `[{X aaa} {Y bbb}]`},
		{"1 of: all", "  s_a:\n    X: 'aaa'\n  s_b:\n    Y: 'bbb'\n  condition: 1 of s_*", `[{X aaa} {Y bbb}]`},
		{"glob: its longest literal", "  sel:\n    Image: 'c:\\users\\\\*\\appdata\\roaming\\x.exe'\n  condition: sel", `[{Image \appdata\roaming\x.exe}]`},
		{"keywords: any field", "  kw:\n    - 'Mimikatz'\n  condition: kw", `[{ mimikatz}]`},
		{"windash: each variant", "  sel:\n    CommandLine|contains|windash: ' -enc'\n  condition: sel", `[{CommandLine  -enc} {CommandLine  /enc} {CommandLine  –enc} {CommandLine  —enc} {CommandLine  ―enc}]`},
		{"keywords with all: the longest, any field", "  kw:\n    '|all':\n      - 'ab'\n      - 'abcdef'\n  condition: kw", `[{ abcdef}]`},
		{"not alone: none", "  sel:\n    X: 'aaa'\n  condition: not sel", "none"},
		{"null: none", "  sel:\n    X: null\n  condition: sel", "none"},
		{"regex: none", "  sel:\n    X|re: 'a+'\n  condition: sel", "none"},
		{"or with a none side: none", "  a:\n    X: 'aaa'\n  b:\n    Y|re: 'b'\n  condition: a or b", "none"},
		{"and with a none side: the other", "  a:\n    X: 'aaa'\n  b:\n    Y|re: 'b'\n  condition: a and b", `[{X aaa}]`},
		{"star alone: none", "  sel:\n    X: '*'\n  condition: sel", "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse([]byte(rule(c.detection)))
			if err != nil {
				t.Fatal(err)
			}
			needles, ok := r.Needles()
			got := "none"
			if ok {
				got = fmt.Sprint(needles)
			}
			if got != c.want {
				t.Fatalf("needles %s, want %s", got, c.want)
			}
		})
	}
}
