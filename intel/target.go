package intel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"garrison/intel/cpe"
	"garrison/store"
)

// TargetFinder answers, for the exploit attempts of one ingested body,
// whether the host attacked runs what the attempt targets: a CVE the
// signature names affects the host's software (the watchlist's matching,
// versions and all: a patched host is not a target), or, when the store
// holds none of the CVEs named, the host runs the product the signature's
// metadata names. A host the inventory does not hold runs nothing known.
type TargetFinder struct {
	st      *store.Store
	m       *matcher
	hosts   map[string][]*store.Asset // by address and lower-case host name
	targets map[string]*Targets       // CVE id → its targets; nil when the store lacks it
}

// NewTargetFinder reads an organization's inventory.
func NewTargetFinder(ctx context.Context, st *store.Store, orgID string) (*TargetFinder, error) {
	m, err := newMatcher(ctx, st, orgID)
	if err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	f := &TargetFinder{st: st, m: m, hosts: map[string][]*store.Asset{}, targets: map[string]*Targets{}}
	for _, ref := range m.everything() {
		a := ref.asset
		for _, key := range []string{a.IP, strings.ToLower(a.Hostname)} {
			if key != "" && !slices.Contains(f.hosts[key], a) {
				f.hosts[key] = append(f.hosts[key], a)
			}
		}
	}
	return f, nil
}

// Runs says which of the host's software the attempt targets, and why;
// false when none.
func (f *TargetFinder) Runs(ctx context.Context, host string, cves, products []string) (string, bool, error) {
	assets := f.hosts[strings.ToLower(host)]
	if len(assets) == 0 {
		return "", false, nil
	}
	known := false // a CVE the store holds decides, versions and all; the product names only when none is known
	for _, id := range cves {
		t, err := f.cveTargets(ctx, id)
		if err != nil {
			return "", false, err
		}
		if t == nil {
			continue
		}
		known = true
		for _, hit := range f.m.affected(*t) {
			for _, a := range assets {
				if hit.AssetID == a.ID {
					return fmt.Sprintf("%s runs %s, which %s affects", a.Hostname, softwareName(hit.Software), id), true, nil
				}
			}
		}
	}
	if known {
		return "", false, nil
	}
	for _, p := range products {
		want := nameTokens(p)
		for _, a := range assets {
			for _, sw := range a.Software {
				if len(want) > 0 && hasTokens(nameTokens(sw.Vendor+" "+sw.Product), want) {
					return fmt.Sprintf("%s runs %s, the product the signature targets (%s)", a.Hostname, softwareName(sw), p), true, nil
				}
			}
		}
	}
	return "", false, nil
}

// cveTargets reads a CVE's targets once per finder.
func (f *TargetFinder) cveTargets(ctx context.Context, id string) (*Targets, error) {
	if t, ok := f.targets[id]; ok {
		return t, nil
	}
	c, err := f.st.IntelCVE(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		f.targets[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := unpack(c.Targets)
	if err != nil {
		return nil, fmt.Errorf("targets of %s: %w", id, err)
	}
	var t Targets
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("targets of %s: %w", id, err)
	}
	f.targets[id] = &t
	return &t, nil
}

func softwareName(sw store.Software) string {
	return strings.TrimSpace(sw.Vendor + " " + sw.Product + " " + sw.Version)
}

// nameTokens are a product name's words as CPE writes them:
// "Apache_HTTP_server" and "apache http_server" alike.
func nameTokens(s string) []string {
	return strings.FieldsFunc(cpe.Normalize(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// hasTokens reports whether every word wanted is among the words had.
func hasTokens(had, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range had {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
