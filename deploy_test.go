package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnit checks deploy/garrison.service with systemd-analyze
// verify, pointing ExecStart at an executable that exists here.
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: systemd); the unit is checked where it is")
	}
	unit, err := os.ReadFile("deploy/garrison.service")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "garrison.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/garrison", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	for _, want := range []string{"DynamicUser=yes", "StateDirectory=garrison", "ProtectSystem=strict", "NoNewPrivileges=yes", "UMask=0077"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
}

// TestSystemdUnitSettingsFromTheEnvironment: the unit's command line holds
// only --data, so every setting of /etc/garrison/garrison.env (which
// systemd reads after the unit's Environment= defaults, and lets override
// them) reaches the server.
func TestSystemdUnitSettingsFromTheEnvironment(t *testing.T) {
	unit, err := os.ReadFile("deploy/garrison.service")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	env := map[string]string{}
	for _, line := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			args = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, "Environment="); ok {
			for _, kv := range strings.Fields(v) {
				k, val, _ := strings.Cut(kv, "=")
				env[k] = val
			}
		}
	}
	if len(args) != 4 || args[1] != "serve" || args[2] != "--data" {
		t.Fatalf("ExecStart %q: only --data belongs on the command line", args)
	}
	// The env file, read after Environment=, replaces a default.
	env["GARRISON_ADDR"] = ":443"
	env["GARRISON_SMTP_ADDR"] = "mail.msp.example:587"
	cfg, err := parseServeConfig(args[2:], func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.addr != ":443" || cfg.httpAddr != ":8080" || cfg.logFormat != "json" || cfg.smtpAddr != "mail.msp.example:587" || cfg.dataDir != "/var/lib/garrison" {
		t.Fatalf("unit settings: addr %q, http %q, log format %q, smtp %q, data %q", cfg.addr, cfg.httpAddr, cfg.logFormat, cfg.smtpAddr, cfg.dataDir)
	}
}
