package ratelimit

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults returns the named limits Garrison starts with. The map is a fresh
// copy; callers may change it.
func Defaults() map[string]Limit {
	return map[string]Limit{
		"auth":       {N: 10, Window: time.Minute},
		"login":      {N: 10, Window: time.Minute},
		"register":   {N: 5, Window: time.Minute},
		"reset":      {N: 5, Window: time.Minute},
		"jwt":        {N: 100, Window: time.Minute},
		"apikey":     {N: 300, Window: time.Minute},
		"apikey-key": {N: 100, Window: time.Minute},
		"agent-runs": {N: 20, Window: time.Minute},
	}
}

// keyShare is the part of its organization's API-key bucket one key may
// take when --limits sets apikey but not apikey-key: a third, so one
// misbehaving integration leaves the others two thirds.
const keyShare = 3

// ParseLimits reads the --limits flag: a comma list of name=N/window applied
// on top of Defaults. The window is a Go duration ("1m", "30s", "1h30m") or a
// bare unit ("s", "m", "h") meaning one of it. An empty string yields the
// defaults. Errors name the offending item.
func ParseLimits(s string) (map[string]Limit, error) {
	limits := Defaults()
	if strings.TrimSpace(s) == "" {
		return limits, nil
	}
	seen := make(map[string]bool)
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("--limits: item %d is empty", i+1)
		}
		name, limit, err := parseLimitItem(item)
		if err != nil {
			return nil, fmt.Errorf("--limits: %q: %w", item, err)
		}
		if _, known := limits[name]; !known {
			return nil, fmt.Errorf("--limits: %q: unknown name %q (known: %s)", item, name, strings.Join(slices.Sorted(maps.Keys(Defaults())), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("--limits: %q: %q is set more than once", item, name)
		}
		seen[name] = true
		limits[name] = limit
	}
	if seen["apikey"] && !seen["apikey-key"] {
		org := limits["apikey"]
		limits["apikey-key"] = Limit{N: (org.N + keyShare - 1) / keyShare, Window: org.Window}
	}
	return limits, nil
}

// parseLimitItem reads one "name=N/window".
func parseLimitItem(item string) (string, Limit, error) {
	name, rate, ok := strings.Cut(item, "=")
	if !ok {
		return "", Limit{}, errors.New("missing '=' (want name=N/window)")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", Limit{}, errors.New("missing name before '='")
	}
	count, window, ok := strings.Cut(rate, "/")
	if !ok {
		return "", Limit{}, errors.New("missing '/' (want name=N/window)")
	}
	n, err := parseCount(strings.TrimSpace(count))
	if err != nil {
		return "", Limit{}, err
	}
	w, err := parseWindow(strings.TrimSpace(window))
	if err != nil {
		return "", Limit{}, err
	}
	limit := Limit{N: n, Window: w}
	if err := limit.validate(); err != nil {
		return "", Limit{}, err
	}
	return name, limit, nil
}

// parseCount accepts plain decimal digits only: no sign, no spaces, no hex.
func parseCount(s string) (int, error) {
	bad := errors.New("count must be a positive integer")
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, bad
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, bad
	}
	return n, nil
}

// parseWindow accepts a Go duration or a bare unit meaning one of it.
func parseWindow(s string) (time.Duration, error) {
	switch s {
	case "s":
		return time.Second, nil
	case "m":
		return time.Minute, nil
	case "h":
		return time.Hour, nil
	case "":
		return 0, errors.New("window is missing (e.g. 1m, 30s, h)")
	}
	w, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("window: %w", err)
	}
	if w <= 0 {
		return 0, errors.New("window must be a positive duration")
	}
	return w, nil
}
