package sigma

import (
	"strings"
	"testing"
)

// rule builds a rule's text around a detection block.
func rule(detection string) string {
	return "title: t\nid: 5e0b1f6c-0000-4000-8000-000000000001\nlogsource:\n  product: windows\n  category: process_creation\nlevel: high\ndetection:\n" + detection
}

func TestMatch(t *testing.T) {
	cases := []struct {
		name      string
		detection string
		event     Event
		want      bool
	}{
		{"exact, any case", "  sel:\n    Image: 'C:\\Windows\\cmd.exe'\n  condition: sel", Event{"Image": `c:\windows\CMD.EXE`}, true},
		{"exact is whole", "  sel:\n    Image: 'cmd.exe'\n  condition: sel", Event{"Image": `C:\cmd.exe`}, false},
		{"missing field", "  sel:\n    Image: 'cmd.exe'\n  condition: sel", Event{}, false},
		{"endswith", "  sel:\n    Image|endswith: '\\cmd.exe'\n  condition: sel", Event{"Image": `C:\Windows\CMD.exe`}, true},
		{"startswith", "  sel:\n    Image|startswith: 'C:\\Users\\'\n  condition: sel", Event{"Image": `C:\Windows\cmd.exe`}, false},
		{"contains any", "  sel:\n    CommandLine|contains:\n      - ' -enc '\n      - ' -e '\n  condition: sel", Event{"CommandLine": "powershell -e AAAA"}, true},
		{"contains all", "  sel:\n    CommandLine|contains|all:\n      - 'icacls '\n      - 'Everyone'\n  condition: sel", Event{"CommandLine": "icacls x"}, false},
		{"contains all, all there", "  sel:\n    CommandLine|contains|all:\n      - 'icacls '\n      - 'Everyone'\n  condition: sel", Event{"CommandLine": "icacls x | findstr everyone"}, true},
		{"wildcards", "  sel:\n    Image: 'C:\\\\*\\\\sys?em32\\\\*.exe'\n  condition: sel", Event{"Image": `C:\Windows\System32\net.exe`}, true},
		{"escaped star is a star", "  sel:\n    TargetObject|endswith: '\\\\\\*'\n  condition: sel", Event{"TargetObject": `HKU\x\*`}, true},
		{"escaped star is not a wildcard", "  sel:\n    TargetObject|endswith: '\\\\\\*'\n  condition: sel", Event{"TargetObject": `HKU\x\y`}, false},
		{"cased", "  sel:\n    Image|cased: 'CMD.exe'\n  condition: sel", Event{"Image": "cmd.exe"}, false},
		{"number", "  sel:\n    EventID: 4688\n  condition: sel", Event{"EventID": "4688"}, true},
		{"null: absent", "  sel:\n    OriginalFileName: null\n  condition: sel", Event{}, true},
		{"null: empty", "  sel:\n    OriginalFileName: null\n  condition: sel", Event{"OriginalFileName": ""}, true},
		{"null: set", "  sel:\n    OriginalFileName: null\n  condition: sel", Event{"OriginalFileName": "x"}, false},
		{"exists", "  sel:\n    Hashes|exists: true\n  condition: sel", Event{"Hashes": ""}, true},
		{"exists false", "  sel:\n    Hashes|exists: false\n  condition: sel", Event{"Hashes": "x"}, false},
		{"re, unanchored", "  sel:\n    CommandLine|re: '\\s-[eE]nc\\s'\n  condition: sel", Event{"CommandLine": "ps -Enc x"}, true},
		{"re is cased", "  sel:\n    CommandLine|re: 'ENC'\n  condition: sel", Event{"CommandLine": "enc"}, false},
		{"re|i", "  sel:\n    CommandLine|re|i: 'ENC'\n  condition: sel", Event{"CommandLine": "enc"}, true},
		{"windash", "  sel:\n    CommandLine|contains|windash: ' -decode '\n  condition: sel", Event{"CommandLine": "certutil /decode a b"}, true},
		{"windash en dash", "  sel:\n    CommandLine|contains|windash: ' -decode '\n  condition: sel", Event{"CommandLine": "certutil \u2013decode a b"}, true},
		{"windash under all: any variant of each value", "  sel:\n    CommandLine|contains|all|windash:\n      - ' -a '\n      - ' -b '\n  condition: sel", Event{"CommandLine": "x /a -b "}, true},
		{"windash leaves a-b", "  sel:\n    CommandLine|contains|windash: 'a-b'\n  condition: sel", Event{"CommandLine": "a/b"}, false},
		{"base64offset", "  sel:\n    CommandLine|base64offset|contains: 'http://'\n  condition: sel", Event{"CommandLine": "powershell -enc " + "IGh0dHA6Ly9ldmls"}, true},
		{"base64", "  sel:\n    CommandLine|base64|contains: 'whoami'\n  condition: sel", Event{"CommandLine": "x d2hvYW1p y"}, true},
		{"cidr", "  sel:\n    DestinationIp|cidr: '10.0.0.0/8'\n  condition: sel", Event{"DestinationIp": "10.2.3.4"}, true},
		{"cidr outside", "  sel:\n    DestinationIp|cidr: '10.0.0.0/8'\n  condition: sel", Event{"DestinationIp": "11.2.3.4"}, false},
		{"gt", "  sel:\n    LogonType|gt: 3\n  condition: sel", Event{"LogonType": "10"}, true},
		{"fieldref", "  sel:\n    TargetUserName|fieldref: SubjectUserName\n  condition: sel", Event{"TargetUserName": "Bob", "SubjectUserName": "bob"}, true},
		{"list of maps", "  sel:\n    - Image|endswith: '\\a.exe'\n    - OriginalFileName: 'A.EXE'\n  condition: sel", Event{"OriginalFileName": "a.exe"}, true},
		{"keywords", "  kw:\n    - 'mimikatz'\n  condition: kw", Event{"Message": "Invoke-Mimikatz ran"}, true},
		{"keywords, all", "  kw:\n    '|all':\n      - 'New-MailboxExportRequest'\n      - ' -Mailbox '\n  condition: kw", Event{"Payload": "new-mailboxexportrequest -Mailbox x", "Other": "y"}, true},
		{"keywords, all, one missing", "  kw:\n    '|all':\n      - 'New-MailboxExportRequest'\n      - ' -Mailbox '\n  condition: kw", Event{"Payload": "New-MailboxExportRequest"}, false},
		{"keywords, all, in two fields", "  kw:\n    '|all':\n      - 'alpha'\n      - 'beta'\n  condition: kw", Event{"A": "alpha", "B": "beta"}, true},
		{"and not", "  sel:\n    Image|endswith: '\\cmd.exe'\n  filter:\n    ParentImage|endswith: '\\explorer.exe'\n  condition: sel and not filter", Event{"Image": `a\cmd.exe`, "ParentImage": `b\explorer.exe`}, false},
		{"not binds tighter than and", "  a:\n    X: 1\n  b:\n    Y: 1\n  condition: not a and b", Event{"Y": "1"}, true},
		{"and binds tighter than or", "  a:\n    X: 1\n  b:\n    Y: 1\n  c:\n    Z: 1\n  condition: a or b and c", Event{"X": "1"}, true},
		{"parentheses", "  a:\n    X: 1\n  b:\n    Y: 1\n  c:\n    Z: 1\n  condition: (a or b) and c", Event{"X": "1"}, false},
		{"1 of pattern", "  sel_a:\n    X: 1\n  sel_b:\n    Y: 1\n  condition: 1 of sel_*", Event{"Y": "1"}, true},
		{"all of pattern", "  sel_a:\n    X: 1\n  sel_b:\n    Y: 1\n  condition: all of sel_*", Event{"Y": "1"}, false},
		{"1 of them skips _", "  sel:\n    X: 1\n  _filter:\n    Y: 1\n  condition: 1 of them", Event{"Y": "1"}, false},
		{"condition list is any", "  a:\n    X: 1\n  b:\n    Y: 1\n  condition:\n    - a\n    - b", Event{"Y": "1"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse([]byte(rule(c.detection)))
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, rule(c.detection))
			}
			if got := r.Match(c.event); got != c.want {
				t.Fatalf("match %v, want %v", got, c.want)
			}
		})
	}
}

// A refused rule says why and on which line of its text.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"not YAML", "title: t\ndetection: [\n", "line 3: not valid YAML: did not find expected node content"}, // the text ends in the list
		{"unclosed list", "title: t\nid: [a, b\nlevel: high\n", "line 2: not valid YAML: did not find expected ',' or ']'"},
		{"unclosed map", "title: t\nlogsource: {product: windows\nlevel: high\n", "line 2: not valid YAML: did not find expected ',' or '}'"},
		{"bad indent", "title: t\nlogsource:\n  product: w\n service: x\n", "line 4: not valid YAML"},
		{"not a mapping", "- a\n- b\n", "line 1: a rule is a mapping"},
		{"no title", "logsource:\n  product: windows\ndetection:\n  s:\n    X: 1\n  condition: s\n", "line 1: the rule has no title"},
		{"no detection", "title: t\nlogsource:\n  product: windows\n", "the rule has no detection"},
		{"empty logsource", "title: t\nlogsource: {}\ndetection:\n  s:\n    X: 1\n  condition: s\n", "line 2: logsource names no"},
		{"bad level", "title: t\nlevel: severe\nlogsource:\n  product: windows\ndetection:\n  s:\n    X: 1\n  condition: s\n", "line 2: level must be one of"},
		{"unknown search", rule("  sel:\n    X: 1\n  condition: sel and other\n"), "line 10: condition: names \"other\""},
		{"unclosed (", rule("  sel:\n    X: 1\n  condition: (sel\n"), "line 10: condition: a ( is not closed"},
		{"aggregation", rule("  sel:\n    X: 1\n  condition: sel | count() > 5\n"), "line 10: condition: aggregations"},
		{"no condition", rule("  sel:\n    X: 1\n"), "line 8: detection has no condition"},
		{"unknown modifier", rule("  sel:\n    X|bogus: 1\n  condition: sel\n"), "line 9: unknown modifier \"bogus\""},
		{"bad regex", rule("  sel:\n    X|re: '(?<=a)b'\n  condition: sel\n"), "line 9: field X: a regular expression RE2 cannot read"},
		{"bad cidr", rule("  sel:\n    X|cidr: '10.0.0/8'\n  condition: sel\n"), "line 9: field X: not a CIDR prefix"},
		{"empty list", rule("  sel:\n    X: []\n  condition: sel\n"), "line 9: field X has an empty list"},
		{"of nothing", rule("  sel:\n    X: 1\n  condition: 1 of filter_*\n"), "\"filter_*\" names no search"},
		{"fieldless re", rule("  sel:\n    '|re': 'a'\n  condition: sel\n"), "line 9: modifier re needs a field name"},
		{"twice", rule("  sel:\n    X: 1\n  sel:\n    Y: 1\n  condition: sel\n"), "line 10: search \"sel\" is given twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestRuleAttribution(t *testing.T) {
	r, err := Parse([]byte("title: Findstr LSASS\nid: fe63010f-8823-4864-a96b-a7b4a0f7b929\nauthor: Nasreddine Bencherchali (Nextron Systems)\n" +
		"tags:\n  - attack.credential-access\n  - attack.t1552.006\nlevel: high\nlogsource:\n  product: windows\n  category: process_creation\n" +
		"detection:\n  sel:\n    CommandLine|contains: lsass\n  condition: sel\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Author != "Nasreddine Bencherchali (Nextron Systems)" || r.ID != "fe63010f-8823-4864-a96b-a7b4a0f7b929" || r.Level != "high" ||
		len(r.Tags) != 2 || r.Logsource != (Logsource{Product: "windows", Category: "process_creation"}) {
		t.Fatalf("%+v", r)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(rule("  sel:\n    Image|endswith: '\\cmd.exe'\n  condition: sel and not 1 of filter*\n  filter_a:\n    X: null\n")))
	f.Add([]byte(rule("  kw:\n    - 'a*b?c\\\\*'\n  condition: kw\n")))
	f.Add([]byte(rule("  s:\n    X|base64offset|contains: 'http'\n    Y|contains|windash: ' -a -b /c'\n  condition: all of them\n")))
	f.Add([]byte("title: [\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := Parse(src)
		if err != nil {
			return
		}
		r.Match(Event{"Image": `C:\x\cmd.exe`, "X": "", "Y": "-a", "CommandLine": "*?\\"})
	})
}

func TestGlob(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"a*b", "axxb", true},
		{"a*b", "axxbc", false},
		{"*a*b*", "xaxbx", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true},
		{"*", "", true},
		{"a*b*c", "abcbc", true},
		{"a*b*c", "acb", false},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{`a\\*`, `a\xyz`, true},
		{`a\b`, `a\b`, true},
		{`a\`, `a\`, true},
	}
	for _, c := range cases {
		p, err := compileGlob(c.pattern, matchExact, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.matchLower(c.s, c.s); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}
