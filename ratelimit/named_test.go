package ratelimit

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestLimitString(t *testing.T) {
	tests := []struct {
		limit Limit
		want  string
	}{
		{Limit{N: 10, Window: time.Minute}, "10/1m0s"},
		{Limit{N: 5, Window: 30 * time.Second}, "5/30s"},
		{Limit{N: 100, Window: time.Hour + 30*time.Minute}, "100/1h30m0s"},
	}
	for _, tt := range tests {
		if got := tt.limit.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.limit, got, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	want := map[string]Limit{
		"auth":       {10, time.Minute},
		"login":      {10, time.Minute},
		"register":   {5, time.Minute},
		"reset":      {5, time.Minute},
		"jwt":        {100, time.Minute},
		"apikey":     {300, time.Minute},
		"apikey-key": {100, time.Minute},
		"agent-runs": {20, time.Minute},
	}
	got := Defaults()
	if !maps.Equal(got, want) {
		t.Fatalf("Defaults() = %v, want %v", got, want)
	}
	got["jwt"] = Limit{N: 1, Window: time.Second}
	if Defaults()["jwt"] != want["jwt"] {
		t.Fatal("changing the returned map changed the defaults")
	}
}

func TestParseLimits(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		changed map[string]Limit // on top of Defaults
	}{
		{"empty", "", nil},
		{"blank", "   ", nil},
		{"one", "jwt=200/1m", map[string]Limit{"jwt": {200, time.Minute}}},
		{"bare units", "login=3/m,register=1/h,reset=2/s", map[string]Limit{
			"login": {3, time.Minute}, "register": {1, time.Hour}, "reset": {2, time.Second},
		}},
		{"go durations", "auth=10/30s,agent-runs=5/1h30m", map[string]Limit{
			"auth": {10, 30 * time.Second}, "agent-runs": {5, 90 * time.Minute},
		}},
		{"spaces around items and parts", " apikey = 50 / 10s , jwt=1/1m ", map[string]Limit{
			"apikey": {50, 10 * time.Second}, "apikey-key": {17, 10 * time.Second}, "jwt": {1, time.Minute},
		}},
		{"a key's share follows its organization's", "apikey=100000/1m", map[string]Limit{
			"apikey": {100000, time.Minute}, "apikey-key": {33334, time.Minute},
		}},
		{"a key's own", "apikey=10/1m,apikey-key=10/1m", map[string]Limit{
			"apikey": {10, time.Minute}, "apikey-key": {10, time.Minute},
		}},
		{"same as default", "auth=10/1m", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLimits(tt.in)
			if err != nil {
				t.Fatalf("ParseLimits(%q): %v", tt.in, err)
			}
			want := Defaults()
			maps.Copy(want, tt.changed)
			if !maps.Equal(got, want) {
				t.Fatalf("ParseLimits(%q) = %v, want %v", tt.in, got, want)
			}
		})
	}
}

func TestParseLimitsRefuses(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // the whole message, or a distinctive part of it
	}{
		{"jwt=abc/1m", `--limits: "jwt=abc/1m": count must be a positive integer`},
		{"jwt=0/1m", `--limits: "jwt=0/1m": count must be a positive integer`},
		{"jwt=-1/1m", `--limits: "jwt=-1/1m": count must be a positive integer`},
		{"jwt=+5/1m", `--limits: "jwt=+5/1m": count must be a positive integer`},
		{"jwt=0x10/1m", `--limits: "jwt=0x10/1m": count must be a positive integer`},
		{"jwt=1.5/1m", `--limits: "jwt=1.5/1m": count must be a positive integer`},
		{"jwt=/1m", `--limits: "jwt=/1m": count must be a positive integer`},
		{"jwt=99999999999999999999/1m", `--limits: "jwt=99999999999999999999/1m": count must be a positive integer`},
		{"jwt=10/0s", `--limits: "jwt=10/0s": window must be a positive duration`},
		{"jwt=10/-1m", `--limits: "jwt=10/-1m": window must be a positive duration`},
		{"jwt=10/xyz", `--limits: "jwt=10/xyz": window: time: invalid duration`},
		{"jwt=10/10", `--limits: "jwt=10/10": window: time: missing unit`},
		{"jwt=10/", `--limits: "jwt=10/": window is missing`},
		{"jwt=1000000000/1000h", `--limits: "jwt=1000000000/1000h": 1000000000 per 1000h0m0s is too large`},
		{"jwt10/1m", `--limits: "jwt10/1m": missing '='`},
		{"jwt=10", `--limits: "jwt=10": missing '/'`},
		{"=10/1m", `--limits: "=10/1m": missing name`},
		{"nope=1/m", `--limits: "nope=1/m": unknown name "nope" (known: agent-runs, apikey, apikey-key, auth, jwt, login, register, reset)`},
		{"JWT=1/m", `--limits: "JWT=1/m": unknown name "JWT"`},
		{"jwt=1/m,jwt=2/m", `--limits: "jwt=2/m": "jwt" is set more than once`},
		{"jwt=1/m,,auth=1/m", `--limits: item 2 is empty`},
		{"jwt=1/m,", `--limits: item 2 is empty`},
		{",jwt=1/m", `--limits: item 1 is empty`},
		{"jwt=1/m, auth=oops", `--limits: "auth=oops": missing '/'`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLimits(tt.in)
			if err == nil {
				t.Fatalf("ParseLimits(%q) = %v, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseLimits(%q) error = %q, want it to contain %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestParseLimitsReadsString(t *testing.T) {
	for name, limit := range Defaults() {
		limit.N++
		got, err := ParseLimits(name + "=" + limit.String())
		if err != nil || got[name] != limit {
			t.Fatalf("ParseLimits(%q) = %v, %v; want %s", name+"="+limit.String(), got[name], err, limit)
		}
	}
}
