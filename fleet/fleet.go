// Package fleet is a provider's view over its clients: one row per client
// its staff reach (security score and grade, open alerts by severity, the
// age of the oldest open critical alert, the last event and whether the
// sensors went silent, compliance completion per framework, assets exposed
// to a known-exploited CVE, open and escalated tickets), sorted worst
// first, filtered and paged; and one alert queue across those clients.
//
// What changes by the minute (alerts, events, tickets) is read from the
// counters in one query each across all clients; the rows so built serve
// a scope's reads for up to a second while the store commits nothing
// (snapshot). The score, compliance and exposure take a dozen reads per
// client, so each client's are kept for up to RefreshAfter and refreshed
// behind the reads (Run); a client never computed is computed in the
// request.
package fleet

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"garrison/account"
	"garrison/alerting"
	"garrison/dashboard"
	"garrison/event"
	"garrison/intel"
	"garrison/posture"
	"garrison/store"
	"garrison/valid"
)

// RefreshAfter is how old a client's score may be before a read asks for
// it again; StaleAfter, how old before a read waits for it.
const (
	RefreshAfter = time.Minute
	StaleAfter   = 10 * time.Minute
)

// trendDays is how many days the risk trend covers.
const trendDays = 7

// computeWorkers bounds the clients computed at once in one request.
const computeWorkers = 4

// Service computes the fleet view.
type Service struct {
	store    *store.Store
	accounts *account.Accounts
	board    *dashboard.Board
	now      func() time.Time
	log      *slog.Logger

	mu      sync.Mutex
	slow    map[string]slowFacts // by client id
	pending map[string]bool      // queued for Run
	queue   chan string

	snapMu sync.Mutex // held while a snapshot is read or built
	snaps  map[store.ClientScope]fleetSnapshot
}

// Config is what the fleet view needs.
type Config struct {
	Store    *store.Store
	Accounts *account.Accounts
	Board    *dashboard.Board // the risk timeline's rule
	Now      func() time.Time
	Log      *slog.Logger
}

// New builds the fleet view.
func New(c Config) *Service {
	return &Service{store: c.Store, accounts: c.Accounts, board: c.Board, now: c.Now, log: c.Log,
		slow: map[string]slowFacts{}, pending: map[string]bool{}, queue: make(chan string, 4096), snaps: map[store.ClientScope]fleetSnapshot{}}
}

// slowFacts are a client's facts kept between reads.
type slowFacts struct {
	at         time.Time
	score      int
	grade      string
	trend      []int
	compliance []Completion
	kevAssets  int
	kevCVEs    int
}

// Completion is a framework's completion in the client's latest audit.
type Completion struct {
	Framework  string
	Percentage int
	AuditedAt  time.Time
}

// Row is one client in the fleet view.
type Row struct {
	Client         store.Org
	Score          int
	Grade          string
	ScoredAt       time.Time
	RiskTrend      []int // the last trendDays days' risk, oldest first
	OpenAlerts     event.Counts
	OldestCritical *time.Duration // how long the oldest open critical alert has been open
	LastEvent      *time.Time
	Silent         bool // no event within posture.SilentAfter (or none ever)
	Compliance     []Completion
	KEVAssets      int // assets a watched, known-exploited CVE affects
	KEVCVEs        int
	OpenTickets    int
	Escalated      int
}

// Sorts are the fleet view's orders, each worst first (name: A to Z).
var Sorts = []string{"score", "open_critical", "last_event", "name"}

// Query is the fleet view's sort, filters and page, as given.
type Query struct {
	Sort   string
	Grade  string // comma list of grades
	Silent string // "true" or "false"
	Search string // part of the name, any case
	Page   store.Page
}

// maxSearch bounds the name filter.
const maxSearch = 100

// List is the page of the clients who reaches, worst first by default.
func (s *Service) List(ctx context.Context, who account.Credential, q Query) ([]Row, int, error) {
	var p valid.Problems
	sort := cmp.Or(q.Sort, "score")
	p.Check(slices.Contains(Sorts, sort), "sort", "must be one of "+strings.Join(Sorts, ", "))
	grades := map[string]bool{}
	if q.Grade != "" {
		for _, g := range strings.Split(q.Grade, ",") {
			g = strings.ToUpper(strings.TrimSpace(g))
			p.Check(slices.Contains(posture.Grades, g), "grade", "must be a comma-separated list of "+strings.Join(posture.Grades, ", "))
			grades[g] = true
		}
	}
	p.Check(q.Silent == "" || q.Silent == "true" || q.Silent == "false", "silent", "must be true or false")
	p.Check(utf8.RuneCountInString(q.Search) <= maxSearch, "q", "must be at most 100 characters")
	if err := p.Err(); err != nil {
		return nil, 0, err
	}
	sc, err := account.ClientScope(who)
	if err != nil {
		return nil, 0, err
	}
	all, err := s.snapshot(ctx, who, sc)
	if err != nil {
		return nil, 0, err
	}
	search := strings.ToLower(q.Search)
	rows := slices.DeleteFunc(slices.Clone(all), func(r Row) bool {
		return (search != "" && !strings.Contains(strings.ToLower(r.Client.Name), search)) ||
			(len(grades) > 0 && !grades[r.Grade]) || (q.Silent != "" && r.Silent != (q.Silent == "true"))
	})
	slices.SortStableFunc(rows, order(sort))
	total := len(rows)
	from := min(q.Page.Offset, total)
	return rows[from:min(from+q.Page.Limit, total)], total, nil
}

// snapshotFor is how long a scope's rows serve reads while nothing was
// written: a SOC polling its fleet every few seconds, or many technicians
// at once, cost one build a second, not one each.
const snapshotFor = time.Second

// snapshot is every row of the scope: the one built last, while the store
// committed nothing since and it is under snapshotFor old, else built now
// (by one request at a time; the others wait for it).
func (s *Service) snapshot(ctx context.Context, who account.Credential, sc store.ClientScope) ([]Row, error) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	commits := s.store.Commits()
	if v, ok := s.snaps[sc]; ok && v.commits == commits && time.Since(v.built) < snapshotFor {
		return v.rows, nil
	}
	clients, err := s.accounts.Clients(ctx, who)
	if err != nil {
		return nil, err
	}
	rows, err := s.rows(ctx, sc, clients)
	if err != nil {
		return nil, err
	}
	if len(s.snaps) >= maxSnapshots {
		clear(s.snaps)
	}
	s.snaps[sc] = fleetSnapshot{rows: rows, commits: commits, built: time.Now()}
	return rows, nil
}

// maxSnapshots bounds the scopes kept (a provider's and each of its
// assigned people's).
const maxSnapshots = 1000

// fleetSnapshot is a scope's rows as built at a store commit count.
type fleetSnapshot struct {
	rows    []Row
	commits int64
	built   time.Time // monotonic: the age of a view, whatever the app's clock
}

// Get is one client's row, from the caller's snapshot; one who does not
// reach is store.ErrNotFound.
func (s *Service) Get(ctx context.Context, who account.Credential, clientID string) (Row, error) {
	if _, err := s.accounts.Client(ctx, who, clientID); err != nil {
		return Row{}, err
	}
	sc, err := account.ClientScope(who)
	if err != nil {
		return Row{}, err
	}
	all, err := s.snapshot(ctx, who, sc)
	if err != nil {
		return Row{}, err
	}
	for _, r := range all {
		if r.Client.ID == clientID {
			return r, nil
		}
	}
	return Row{}, store.ErrNotFound // offboarded between the two reads
}

// order is the comparison of a sort, worst first, then by name and id.
func order(sort string) func(a, b Row) int {
	byName := func(a, b Row) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Client.Name), strings.ToLower(b.Client.Name)), cmp.Compare(a.Client.ID, b.Client.ID))
	}
	switch sort {
	case "score":
		return func(a, b Row) int { return cmp.Or(cmp.Compare(a.Score, b.Score), byName(a, b)) }
	case "open_critical":
		return func(a, b Row) int {
			return cmp.Or(cmp.Compare(b.OpenAlerts[event.Critical], a.OpenAlerts[event.Critical]),
				cmp.Compare(b.OpenAlerts.Total(), a.OpenAlerts.Total()), byName(a, b))
		}
	case "last_event":
		return func(a, b Row) int { return cmp.Or(compareLast(a.LastEvent, b.LastEvent), byName(a, b)) }
	}
	return byName
}

// compareLast orders last events oldest first, never-heard-from before all.
func compareLast(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

// rows builds the rows of the clients: live figures in one snapshot for
// all of them, the slow ones from memory or computed.
func (s *Service) rows(ctx context.Context, sc store.ClientScope, clients []store.Org) ([]Row, error) {
	live, err := s.store.FleetLive(ctx, sc)
	if err != nil {
		return nil, err
	}
	slow, err := s.slowFactsOf(ctx, clients)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]Row, len(clients))
	for i, c := range clients {
		r := Row{Client: c}
		if l := live[c.ID]; l != nil {
			r.OpenAlerts, r.LastEvent, r.OpenTickets, r.Escalated = l.OpenAlerts, l.LastEvent, l.OpenTickets, l.Escalated
			if l.OldestCritical != nil {
				age := max(now.Sub(*l.OldestCritical), 0)
				r.OldestCritical = &age
			}
		}
		r.Silent = r.LastEvent == nil || posture.Silent(*r.LastEvent, now)
		f := slow[c.ID]
		r.Score, r.Grade, r.ScoredAt, r.RiskTrend, r.Compliance, r.KEVAssets, r.KEVCVEs = f.score, f.grade, f.at, f.trend, f.compliance, f.kevAssets, f.kevCVEs
		out[i] = r
	}
	return out, nil
}

// slowFactsOf returns each client's kept facts, computing those never
// computed or older than StaleAfter (computeWorkers at a time) and asking
// Run to refresh those older than RefreshAfter.
func (s *Service) slowFactsOf(ctx context.Context, clients []store.Org) (map[string]slowFacts, error) {
	now := s.now()
	out := make(map[string]slowFacts, len(clients))
	var missing []string
	s.mu.Lock()
	for _, c := range clients {
		f, ok := s.slow[c.ID]
		switch {
		case !ok || now.Sub(f.at) > StaleAfter:
			missing = append(missing, c.ID)
		case now.Sub(f.at) > RefreshAfter && !s.pending[c.ID]:
			select {
			case s.queue <- c.ID:
				s.pending[c.ID] = true
			default: // a full queue: the next read asks again
			}
		}
		out[c.ID] = f
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, computeWorkers)
	for _, id := range missing {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f, err := s.compute(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				firstErr = cmp.Or(firstErr, err)
				return
			}
			out[id] = f
		}()
	}
	wg.Wait()
	return out, firstErr
}

// compute reads a client's slow facts and keeps them.
func (s *Service) compute(ctx context.Context, clientID string) (slowFacts, error) {
	now := s.now()
	facts, err := posture.Gather(ctx, s.store, clientID, now)
	if err != nil {
		return slowFacts{}, err
	}
	score := posture.Compute(facts)
	f := slowFacts{at: now, score: score.Score, grade: score.Grade}
	for _, a := range facts.Compliance {
		f.compliance = append(f.compliance, Completion{Framework: a.Framework, Percentage: a.Summary.CompletionPercentage, AuditedAt: a.AuditedAt})
	}
	kevAssets := map[string]bool{}
	for _, it := range facts.Exposure {
		if it.KEV && it.Affected > 0 {
			f.kevCVEs++
			for _, id := range it.AssetIDs {
				kevAssets[id] = true
			}
		}
	}
	f.kevAssets = len(kevAssets)
	timeline, err := s.board.Timeline(ctx, clientID, trendDays)
	if err != nil {
		return slowFacts{}, err
	}
	for _, p := range timeline.Points {
		f.trend = append(f.trend, p.Risk)
	}
	s.mu.Lock()
	s.slow[clientID] = f
	s.mu.Unlock()
	return f, nil
}

// Run refreshes the clients reads found older than RefreshAfter, one at a
// time, until ctx ends.
func (s *Service) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-s.queue:
			if _, err := s.compute(ctx, id); err != nil && ctx.Err() == nil {
				s.log.Warn("fleet: refresh a client's score", "org_id", id, "err", err)
			}
			s.mu.Lock()
			delete(s.pending, id)
			s.mu.Unlock()
		}
	}
}

// Forget drops a deleted client's kept facts.
func (s *Service) Forget(clientID string) {
	s.mu.Lock()
	delete(s.slow, clientID)
	s.mu.Unlock()
}

// Alert is an alert of one of the clients, with the client.
type Alert struct {
	Client store.Org
	alerting.Alert
}

// Alerts is one queue of the alerts of every client who reaches, most
// recently active first, with the filters of an organization's list.
func (s *Service) Alerts(ctx context.Context, who account.Credential, q alerting.Query) ([]Alert, int, error) {
	f, err := q.Filter()
	if err != nil {
		return nil, 0, err
	}
	sc, err := account.ClientScope(who)
	if err != nil {
		return nil, 0, err
	}
	alerts, total, err := s.store.FleetAlerts(ctx, sc, f)
	if err != nil {
		return nil, 0, err
	}
	// Read after the alerts: a client made meanwhile is named too.
	clients, err := s.accounts.Clients(ctx, who)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]store.Org, len(clients))
	for _, c := range clients {
		byID[c.ID] = c
	}
	out := make([]Alert, len(alerts))
	for i, a := range alerts {
		out[i] = Alert{Client: byID[a.OrgID], Alert: a.Alert}
	}
	return out, total, nil
}

// Exposure is which of a provider's clients a CVE affects, and where.
type Exposure struct {
	CVEID   string
	Clients []ClientExposure // by name
}

// ClientExposure is one client's open findings of the CVE.
type ClientExposure struct {
	Client   store.Org
	Findings []store.Finding // by host
}

// maxExposureFindings bounds the findings one exposure lists.
const maxExposureFindings = 10_000

// Exposure answers which clients the staff member reaches a CVE affects:
// their open findings of it, by client.
func (s *Service) Exposure(ctx context.Context, who account.Credential, cveID string) (Exposure, error) {
	id, ok := intel.NormalizeCVEID(cveID)
	if !ok {
		return Exposure{}, valid.Field("cve_id", "is required: a CVE id (CVE-2024-12345)")
	}
	sc, err := account.ClientScope(who)
	if err != nil {
		return Exposure{}, err
	}
	found, err := s.store.FleetFindings(ctx, sc, id, maxExposureFindings)
	if err != nil {
		return Exposure{}, err
	}
	clients, err := s.accounts.Clients(ctx, who)
	if err != nil {
		return Exposure{}, err
	}
	out := Exposure{CVEID: id}
	byOrg := map[string][]store.Finding{}
	for _, f := range found {
		byOrg[f.OrgID] = append(byOrg[f.OrgID], f)
	}
	for _, c := range clients {
		if fs := byOrg[c.ID]; len(fs) > 0 {
			out.Clients = append(out.Clients, ClientExposure{Client: c, Findings: fs})
		}
	}
	return out, nil
}
