package valid

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestProblemsKeepTheFirstPerField(t *testing.T) {
	var p Problems
	if p.Err() != nil || p.Len() != 0 {
		t.Fatal("empty problems are an error")
	}
	p.Add("email", "must be a valid e-mail address")
	p.Add("email", "is taken")
	p.Check(true, "name", "never added")
	p.Check(false, "events[3].severity", "must be one of info, low")
	err := p.Err()
	var ve *Error
	if !errors.As(err, &ve) {
		t.Fatalf("%T is not *Error", err)
	}
	if got := strings.Join(ve.Fields(), ","); got != "email,events[3].severity" {
		t.Fatalf("fields %s", got)
	}
	want := "Invalid request: email must be a valid e-mail address; events[3].severity must be one of info, low"
	if err.Error() != want {
		t.Fatalf("message %q", err.Error())
	}
}

func TestProblemsStopAtMaxReported(t *testing.T) {
	var p Problems
	for i := range 3 * MaxReported {
		if p.Full() != (i >= MaxReported) {
			t.Fatalf("Full at %d is %v", i, p.Full())
		}
		p.Add(fmt.Sprint("f", i), "bad")
	}
	if p.Len() != MaxReported {
		t.Fatalf("%d problems kept", p.Len())
	}
}

func TestField(t *testing.T) {
	var ve *Error
	if err := Field("days", "must be from 1 to 365"); !errors.As(err, &ve) || ve.Fields()[0] != "days" {
		t.Fatal(err)
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"plain", true}, {"two\nlines\tand a tab", true}, {"ünïcödé ✓", true}, {"", true},
		{"nul\x00", false}, {"bell\a", false}, {"del\x7f", false}, {"bad \xff utf-8", false}, {"cr\r", false},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestName(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"Acme Ltd", true}, {"Zoë", true}, {strings.Repeat("é", 100), true},
		{"", false}, {" padded", false}, {"padded ", false}, {"tab\tinside", false}, {"new\nline", false},
		{strings.Repeat("a", 101), false}, {"bad \xff", false}, {"zero\u200bwidth", false},
	}
	for _, c := range cases {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestHost(t *testing.T) {
	for in, want := range map[string]bool{
		"10.0.0.1": true, "fd00::1": true, "ws-01.corp.local": true, "DC_1": true, "localhost": true,
		"": false, "a..b": false, ".a": false, "has space": false, "x/y": false, strings.Repeat("a", 64): false,
		strings.Repeat("a.", 127) + "ab": false,
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestCheckText(t *testing.T) {
	line := TextRule{Max: 10, Required: true, OneLine: true}
	for _, tc := range []struct {
		s    string
		r    TextRule
		want string // "" when accepted
	}{
		{"subject", line, ""},
		{"", line, "is required"},
		{" \t ", line, "is required"},
		{"", TextRule{Max: 10}, ""},
		{"0123456789x", line, "must be at most 10 bytes (it has 11)"},
		{"ééééé", line, ""}, // 10 bytes
		{"éééééé", line, "must be at most 10 bytes (it has 12)"},
		{"a\x00b", line, "must be UTF-8 text without control characters other than newline and tab"},
		{"a\xffb", line, "must be UTF-8 text without control characters other than newline and tab"},
		{"two\nlines", line, "must be one line"},
		{"two\nlines", TextRule{Max: 10}, ""},
		{"cr\rlf", line, "must be UTF-8 text without control characters other than newline and tab"},
	} {
		var p Problems
		p.CheckText("f", tc.s, tc.r)
		got := ""
		if err := p.Err(); err != nil {
			got = err.(*Error).Problems[0].Message
		}
		if got != tc.want {
			t.Errorf("CheckText(%q, %+v) = %q, want %q", tc.s, tc.r, got, tc.want)
		}
	}
}
