package intel

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/attack"
	"garrison/intel/cpe"
	"garrison/intel/feed"
	"garrison/store"
	"garrison/valid"
)

// Watch statuses.
const (
	StatusPending  = "pending"
	StatusEnriched = "enriched"
)

var cveIDRe = regexp.MustCompile(`^CVE-[0-9]{4}-[0-9]{4,19}$`)

// NormalizeCVEID upper-cases and checks a CVE id.
func NormalizeCVEID(id string) (string, bool) {
	id = strings.ToUpper(strings.TrimSpace(id))
	return id, cveIDRe.MatchString(id)
}

// Technique is an ATT&CK technique an entry maps to, with where the
// mapping comes from.
type Technique struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Tactics []string `json:"tactics"`
	URL     string   `json:"url"`
	// Source: "ctid" (the Center for Threat-Informed Defense mapped this
	// CVE) or "cwe-capec" (derived: the CVE's weakness, a CAPEC pattern
	// of it, the technique that pattern names; Via says which).
	Source string `json:"source"`
	Role   string `json:"role,omitempty"`
	Via    string `json:"via,omitempty"`
}

// AffectedAsset is an asset whose software matches the CVE.
type AffectedAsset struct {
	AssetID  string         `json:"asset_id"`
	Hostname string         `json:"hostname"`
	Owner    string         `json:"owner"`
	Software store.Software `json:"software"`
	// Match is "cpe" (a CPE range of NVD's configurations) or "name" (the
	// CVE has no CPE data; the vendor and product names matched).
	Match        string `json:"match"`
	VersionKnown bool   `json:"version_known"`
	Reason       string `json:"reason"`
}

// Entry is a watchlist entry with its enrichment.
type Entry struct {
	store.WatchEntry
	Status     string
	View       *View
	Techniques []Technique
	Affected   []AffectedAsset
	LastIntel  *time.Time
	History    []store.IntelChange // GET of one entry only
}

// Watch puts a CVE on the organization's watchlist; it is enriched at once
// from the local store, or pending until an import brings it.
func (s *Service) Watch(ctx context.Context, orgID, cveID, actor string) (Entry, error) {
	id, ok := NormalizeCVEID(cveID)
	if !ok {
		return Entry{}, valid.Field("cve_id", "must be a CVE identifier: CVE-YYYY-NNNN (a year, then 4 to 19 digits)")
	}
	w, err := s.cfg.Store.AddWatch(ctx, store.WatchEntry{OrgID: orgID, CVEID: id, AddedBy: actor})
	if err != nil {
		return Entry{}, err
	}
	return s.WatchEntry(ctx, orgID, w.ID)
}

// matcher matches CVE targets against one organization's inventory,
// indexed by product: a CVE costs a lookup per range, not a pass over
// every asset's software.
type matcher struct {
	byProduct map[string][]softwareRef // normalized vendor \x00 product
	assets    []store.Asset
	all       []softwareRef // for criteria naming any vendor or product, made when first asked
}

// everything is every software entry, for criteria naming any vendor or
// product (rare: made only when one does).
func (m *matcher) everything() []softwareRef {
	if m.all == nil {
		m.all = []softwareRef{}
		for i := range m.assets {
			for j, sw := range m.assets[i].Software {
				m.all = append(m.all, softwareRef{&m.assets[i], j, sw})
			}
		}
	}
	return m.all
}

type softwareRef struct {
	asset *store.Asset
	i     int // its place in asset.Software: the entry's identity
	sw    store.Software
}

// id is the entry a reference is to, comparable.
func (r softwareRef) id() refID { return refID{r.asset, r.i} }

type refID struct {
	asset *store.Asset
	i     int
}

func productKey(vendor, product string) string {
	return normalizeName(vendor) + "\x00" + normalizeName(product)
}

func newMatcher(ctx context.Context, st *store.Store, orgID string) (*matcher, error) {
	assets, err := st.AllAssets(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return matcherOf(assets), nil
}

// matcherOf indexes assets' software by vendor and product.
func matcherOf(assets []store.Asset) *matcher {
	m := &matcher{byProduct: map[string][]softwareRef{}, assets: assets}
	// Inventories repeat names: each pair is normalized once.
	keyOf := map[[2]string]string{}
	for i := range assets {
		a := &assets[i]
		for j, sw := range a.Software {
			ref := softwareRef{a, j, sw}
			k, ok := keyOf[[2]string{sw.Vendor, sw.Product}]
			if !ok {
				k = productKey(sw.Vendor, sw.Product)
				keyOf[[2]string{sw.Vendor, sw.Product}] = k
			}
			keys := []string{k}
			if sw.CPE != "" {
				if n, err := cpe.Parse(sw.CPE); err == nil {
					keys = append(keys, productKey(n.Vendor, n.Product))
				}
			}
			for j, k := range keys {
				if j == 0 || k != keys[0] {
					m.byProduct[k] = append(m.byProduct[k], ref)
				}
			}
		}
	}
	return m
}

// candidates are the software entries that may be the product named.
func (m *matcher) candidates(vendor, product string) []softwareRef {
	if vendor == "*" || product == "*" || vendor == "" || product == "" {
		return m.everything()
	}
	return m.byProduct[productKey(vendor, product)]
}

// affected lists the assets a CVE's targets match, by host name.
func (m *matcher) affected(t Targets) []AffectedAsset {
	out := []AffectedAsset{}
	m.each(t, func(ref softwareRef, res cpe.MatchResult) {
		out = append(out, AffectedAsset{AssetID: ref.asset.ID, Hostname: ref.asset.Hostname, Owner: ref.asset.Owner, Software: ref.sw,
			Match: res.Kind, VersionKnown: res.VersionKnown, Reason: res.Reason})
	})
	slices.SortStableFunc(out, func(a, b AffectedAsset) int { return strings.Compare(a.Hostname, b.Hostname) })
	return out
}

// each calls found with each software entry a CVE's targets match: CPE
// ranges when the CVE has any, else the CVE 5 affected products by name;
// each entry once, by the first target that matches it.
func (m *matcher) each(t Targets, found func(softwareRef, cpe.MatchResult)) {
	seen := map[refID]bool{}
	soft := func(ref softwareRef) cpe.Software {
		return cpe.Software{Vendor: ref.sw.Vendor, Product: ref.sw.Product, Version: ref.sw.Version, CPE: ref.sw.CPE}
	}
	if len(t.CPEMatches) > 0 {
		for _, cm := range t.CPEMatches {
			n, err := cpe.Parse(cm.Criteria)
			if err != nil {
				continue
			}
			r := cpe.Range{Criteria: cm.Criteria, StartIncluding: cm.StartIncluding, StartExcluding: cm.StartExcluding,
				EndIncluding: cm.EndIncluding, EndExcluding: cm.EndExcluding}
			for _, ref := range m.candidates(n.Vendor, n.Product) {
				if seen[ref.id()] {
					continue
				}
				res, ok := r.MatchParsed(n, soft(ref))
				if ok && cm.RunningOn != "" {
					ok = onPlatform(ref.asset, cm.RunningOn, &res)
				}
				if ok {
					seen[ref.id()] = true
					found(ref, res)
				}
			}
		}
		return
	}
	for _, af := range t.Affected {
		a := toCPEAffected(af)
		for _, ref := range m.candidates(af.Vendor, af.Product) {
			if !seen[ref.id()] {
				if res, ok := a.Match(soft(ref)); ok {
					seen[ref.id()] = true
					found(ref, res)
				}
			}
		}
	}
}

func toCPEAffected(a feed.Affected) cpe.Affected {
	out := cpe.Affected{Vendor: a.Vendor, Product: a.Product, DefaultStatus: a.DefaultStatus}
	for _, v := range a.Versions {
		out.Versions = append(out.Versions, cpe.AffectedVersion{Version: v.Version, LessThan: v.LessThan,
			LessThanOrEqual: v.LessThanOrEqual, Status: v.Status, VersionType: v.VersionType})
	}
	return out
}

// CVETechniques maps a CVE to ATT&CK as the watchlist does (without the
// technique names an imported bundle gives): for the threat researcher.
func CVETechniques(v *View) []Technique { return techniques(v, nil) }

// techniques maps a CVE to ATT&CK: the CTID mappings of the CVE when there
// are any, else the techniques its weaknesses reach through CAPEC.
// Imported technique names win over the embedded catalog's.
func techniques(v *View, imported map[string]store.IntelTechnique) []Technique {
	out := []Technique{}
	// An imported bundle renames techniques; tactics keep the catalog's
	// display names (bundles give phase names such as "initial-access").
	overlay := func(t Technique) Technique {
		if it, ok := imported[t.ID]; ok && !it.Deprecated {
			t.Name = it.Name
		}
		return t
	}
	for _, m := range attack.ForCVE(v.ID) {
		out = append(out, overlay(Technique{ID: m.Technique.ID, Name: m.Technique.Name, Tactics: m.Technique.Tactics, URL: m.Technique.URL,
			Source: "ctid", Role: m.Role}))
	}
	if len(out) > 0 {
		return out
	}
	// Derived from the weakness, a technique is shown only when it is how
	// the CVE is reached (initial access or execution) in a way its vector
	// allows; otherwise a mail server's code execution reads as
	// "Rootkit" and "Bootkit" (CAPEC's patterns of the weakness, not of
	// this CVE), which is noise.
	reach := vectorReach(v)
	seen := map[string]bool{}
	for _, cwe := range v.CWEs {
		for _, m := range attack.ForCWE(cwe) {
			if seen[m.Technique.ID] || !reach.fits(m.Technique.Tactics) {
				continue
			}
			seen[m.Technique.ID] = true
			out = append(out, overlay(Technique{ID: m.Technique.ID, Name: m.Technique.Name, Tactics: m.Technique.Tactics, URL: m.Technique.URL,
				Source: "cwe-capec", Via: m.CWE + " → " + m.CAPEC + " " + m.CAPECName}))
		}
	}
	// A network-reachable flaw needing no user that gives code execution
	// (or full compromise) is exploiting a public-facing application.
	if len(out) == 0 && reach.network && !reach.userInteraction && reach.fullImpact {
		if t, ok := attack.Lookup("T1190"); ok {
			out = append(out, overlay(Technique{ID: t.ID, Name: t.Name, Tactics: t.Tactics, URL: t.URL, Source: "cvss-vector",
				Via: "reachable over the network without user interaction, with high confidentiality, integrity and availability impact"}))
		}
	}
	return out
}

// reach is how a CVE's primary CVSS vector says it is exploited.
type reach struct {
	known, network, userInteraction, fullImpact bool
}

// vectorReach reads the primary score's vector (v2, v3.x or v4.0).
func vectorReach(v *View) reach {
	if v.Primary == nil || v.Primary.Vector == "" {
		return reach{}
	}
	r := reach{known: true}
	metrics := map[string]string{}
	for _, part := range strings.Split(v.Primary.Vector, "/") {
		if k, val, ok := strings.Cut(part, ":"); ok {
			metrics[k] = val
		}
	}
	r.network = metrics["AV"] == "N"
	r.userInteraction = metrics["UI"] == "R" || metrics["UI"] == "P" || metrics["UI"] == "A"
	high := func(keys ...string) bool {
		for _, k := range keys {
			if metrics[k] != "H" && metrics[k] != "C" { // v2 writes C (complete)
				return false
			}
		}
		return true
	}
	r.fullImpact = high("C", "I", "A") || high("VC", "VI", "VA")
	return r
}

// fits reports whether a technique of these tactics is how a CVE of this
// reach is exploited: initial access over the network without a user,
// execution when a user or local access is needed.
func (r reach) fits(tactics []string) bool {
	if !r.known {
		return false
	}
	for _, t := range tactics {
		switch strings.ToLower(strings.ReplaceAll(t, " ", "-")) {
		case "initial-access":
			if r.network && !r.userInteraction {
				return true
			}
		case "execution":
			if r.userInteraction || !r.network {
				return true
			}
		}
	}
	return false
}

// enrich turns a stored entry into an Entry.
func enrich(w store.WatchEntry, m *matcher, imported map[string]store.IntelTechnique) (Entry, error) {
	e := Entry{WatchEntry: w, Status: StatusPending, Techniques: []Technique{}, Affected: []AffectedAsset{}}
	if w.Intel == nil {
		return e, nil
	}
	v, err := decodeView(w.CVEID, w.Intel.View)
	if err != nil {
		return Entry{}, err
	}
	raw, err := unpack(w.Intel.Targets)
	if err != nil {
		return Entry{}, fmt.Errorf("targets of %s: %w", w.CVEID, err)
	}
	var t Targets
	if err := json.Unmarshal(raw, &t); err != nil {
		return Entry{}, fmt.Errorf("targets of %s: %w", w.CVEID, err)
	}
	at := w.Intel.ViewAt
	e.Status, e.View, e.LastIntel = StatusEnriched, &v, &at
	e.Techniques = techniques(&v, imported)
	e.Affected = m.affected(t)
	return e, nil
}

// WatchEntry reads one entry with its enrichment and change history.
func (s *Service) WatchEntry(ctx context.Context, orgID, id string) (Entry, error) {
	w, err := s.cfg.Store.WatchEntryByID(ctx, orgID, id)
	if err != nil {
		return Entry{}, err
	}
	m, err := newMatcher(ctx, s.cfg.Store, orgID)
	if err != nil {
		return Entry{}, err
	}
	imported, err := s.cfg.Store.IntelTechniques(ctx)
	if err != nil {
		return Entry{}, err
	}
	e, err := enrich(w, m, imported)
	if err != nil {
		return Entry{}, err
	}
	history, err := s.cfg.Store.IntelChanges(ctx, w.CVEID, maxHistory)
	if err != nil {
		return Entry{}, err
	}
	// A CVE's arrival is recorded only when someone watches it: an arrival
	// before this organization watched would tell it another did.
	e.History = slices.DeleteFunc(history, func(c store.IntelChange) bool { return c.Field == "record" && c.At.Before(w.CreatedAt) })
	if e.History == nil {
		e.History = []store.IntelChange{}
	}
	return e, nil
}

const maxHistory = 200

// ListQuery filters and orders the watchlist.
type ListQuery struct {
	MinScore    *float64
	KEV         bool   // only KEV-listed
	PatchStatus string // "" or a patch status
	Affected    bool   // only entries with affected assets
	Sort        string // "added" (default), "score", "updated"
	Page        store.Page
}

// ParseListQuery checks the list's query parameters.
func ParseListQuery(minScore, kev, patch, affected, sort string, page store.Page) (ListQuery, error) {
	q := ListQuery{Page: page, PatchStatus: patch, Sort: cmp.Or(sort, "added")}
	var p valid.Problems
	if minScore != "" {
		f, err := strconv.ParseFloat(minScore, 64)
		p.Check(err == nil && f >= 0 && f <= 10, "min_score", "must be a number from 0 to 10")
		q.MinScore = &f
	}
	p.Check(kev == "" || kev == "true" || kev == "false", "kev", "must be true or false")
	q.KEV = kev == "true"
	p.Check(affected == "" || affected == "true" || affected == "false", "affected", "must be true or false")
	q.Affected = affected == "true"
	p.Check(patch == "" || patch == PatchAvailable || patch == NoPatchKnown || patch == PatchUnknown, "patch_status",
		"must be patch_available, no_patch_known or unknown")
	p.Check(q.Sort == "added" || q.Sort == "score" || q.Sort == "updated", "sort", "must be score, added or updated")
	return q, p.Err()
}

// Watchlist lists the organization's entries that pass the filters, in the
// order asked, one page of them, with the total that pass.
func (s *Service) Watchlist(ctx context.Context, orgID string, q ListQuery) ([]Entry, int, error) {
	return watchlist(ctx, s.cfg.Store, orgID, q)
}

func watchlist(ctx context.Context, st *store.Store, orgID string, q ListQuery) ([]Entry, int, error) {
	stored, err := st.WatchEntries(ctx, orgID)
	if err != nil {
		return nil, 0, err
	}
	m, err := newMatcher(ctx, st, orgID)
	if err != nil {
		return nil, 0, err
	}
	imported, err := st.IntelTechniques(ctx)
	if err != nil {
		return nil, 0, err
	}
	var out []Entry
	for _, w := range stored {
		e, err := enrich(w, m, imported)
		if err != nil {
			return nil, 0, err
		}
		if q.keeps(&e) {
			out = append(out, e)
		}
	}
	switch q.Sort {
	case "score":
		slices.SortStableFunc(out, func(a, b Entry) int { return cmp.Compare(b.score(), a.score()) })
	case "updated":
		slices.SortStableFunc(out, func(a, b Entry) int { return cmp.Compare(b.updated(), a.updated()) })
	}
	total := len(out)
	lo, hi := min(q.Page.Offset, total), min(q.Page.Offset+q.Page.Limit, total)
	return out[lo:hi], total, nil
}

func (e *Entry) score() float64 {
	if e.View == nil || e.View.Primary == nil {
		return -1
	}
	return e.View.Primary.Score
}

func (e *Entry) updated() int64 {
	if e.LastIntel == nil {
		return 0
	}
	return e.LastIntel.UnixMilli()
}

func (q ListQuery) keeps(e *Entry) bool {
	patch := PatchUnknown
	if e.View != nil {
		patch = e.View.PatchStatus
	}
	return (q.MinScore == nil || e.score() >= *q.MinScore) && (!q.KEV || e.View != nil && e.View.KEV != nil) &&
		(q.PatchStatus == "" || patch == q.PatchStatus) && (!q.Affected || len(e.Affected) > 0)
}

// Unwatch takes an entry off the watchlist: no more notifications for it.
func (s *Service) Unwatch(ctx context.Context, orgID, id string) (store.WatchEntry, error) {
	e, err := s.cfg.Store.WatchEntryByID(ctx, orgID, id)
	if err != nil {
		return e, err
	}
	return e, s.cfg.Store.DeleteWatch(ctx, orgID, id)
}

// pageAll reads a whole watchlist (it holds at most store.MaxWatched).
var pageAll = store.Page{Limit: store.MaxWatched, Offset: 0}
