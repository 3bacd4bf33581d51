package main

import (
	"fmt"
	"slices"
	"strings"
)

// target is one thing wrk loads.
type target struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	bearer string // the credential it sends, not written to the results
	Auth   string `json:"auth"` // which credential, for the report
	pid    int    // the server process, for its CPU time
}

// targetNames is every target, in the order round 1 runs them (round 2
// runs them backwards). Each baseline comes just before the targets
// judged against it, so a ratio compares moments a few seconds apart;
// clients, judged against limit and events, follows them.
var targetNames = []string{
	"hello", "headers", "health", "stats-jwt", "stats-key",
	"limit", "events", "clients", "events-high", "events-srcip", "events-q", "pb-total", "pb-skiptotal", "overview", "security-score",
}

// garrisonTargets are Garrison's endpoints: name, path, credential.
var garrisonTargets = []struct{ name, path, auth string }{
	{"health", "/api/dashboard/health", "none"},
	{"stats-jwt", "/api/dashboard/stats", "jwt"},
	{"stats-key", "/api/dashboard/stats", "read key"},
	{"events", "/api/events?limit=50", "read key"},
	{"events-high", "/api/events?limit=50&severity=high,critical", "read key"},
	// Field search: one host's address (a quarter of its events carry it),
	// and text in the message, as an analyst hunts.
	{"events-srcip", "/api/events?limit=50&src_ip=10.20.0.7", "read key"},
	{"events-q", "/api/events?limit=50&q=Trojan.Generic.42", "read key"},
	// The provider's fleet view over its --clients clients, default page.
	{"clients", "/api/clients", "read key"},
	{"overview", "/api/dashboard/overview", "read key"},
	{"security-score", "/api/dashboard/security-score", "read key"},
}

// scaleOptIn are the targets the scale run loads only when --only names
// them: the clients' seeding and PocketBase's import of every event would
// add their own long phases to a run about the organization's feed.
var scaleOptIn = []string{"clients", "pb-total", "pb-skiptotal"}

// wantTargets is the targets to load: --only, whose empty value means
// every target, and in the scale run every target but scaleOptIn.
func wantTargets(o options) map[string]bool {
	want, _ := parseOnly(o.only) // checked in parseOptions
	if o.scale > 0 && o.only == "" {
		for _, n := range scaleOptIn {
			delete(want, n)
		}
	}
	return want
}

// parseOnly reads --only: empty means every target.
func parseOnly(s string) (map[string]bool, error) {
	want := map[string]bool{}
	if s == "" {
		for _, n := range targetNames {
			want[n] = true
		}
		return want, nil
	}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(targetNames, n) {
			return nil, fmt.Errorf("unknown target %q in --only; targets: %s", n, strings.Join(targetNames, ", "))
		}
		want[n] = true
	}
	return want, nil
}
