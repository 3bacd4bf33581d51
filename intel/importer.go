package intel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"garrison/fault"
	"garrison/intel/feed"
	"garrison/store"
	"garrison/valid"
)

// MaxImportBytes bounds an import sent to the API.
const MaxImportBytes = 256 << 20

// batchSize is how many records one write transaction takes: large enough
// to amortize the commit, small enough that ingest waits at most a few
// milliseconds for the writer.
const batchSize = 500

// ErrImportTooLarge refuses an API import over MaxImportBytes.
var ErrImportTooLarge = fault.New(fault.TooLarge, fmt.Sprintf(
	"An import sent to the API is at most %d MiB; import larger files with garrison intel import", MaxImportBytes>>20))

// ErrImportRunning refuses an import while another one runs, in this
// process or another: imports read the store to decide what changed, so
// they go one at a time.
var ErrImportRunning = store.ErrImportRunning

// maxDecompressed bounds what a gzipped import may expand to: a small
// file must not unpack into hours of work (a variable for tests).
var maxDecompressed int64 = 4 << 30

// Config configures the intelligence service.
type Config struct {
	Store *store.Store
	Now   func() time.Time
	// TempDir holds API imports while they are checked (the data directory,
	// so a 256 MiB body never sits in memory).
	TempDir string
	// NotifyAgent is the agent whose run tells an organization what an
	// import changed in the CVEs it watches ("threat-researcher").
	NotifyAgent string
	// Queued wakes the agent workers after an import queued runs.
	Queued func()
	// ImportOrgs are the organizations whose admins may import through the
	// API; empty: the first organization of the appliance (the operator's),
	// leaving out those with a user whose address is LIKE one of NotOperator
	// (the demo's: its password is printed and shared).
	ImportOrgs  []string
	NotOperator []string
}

// Service is the vulnerability intelligence of the appliance.
type Service struct {
	cfg      Config
	running  sync.Mutex
	matching sync.Mutex    // one matching at a time (findingsrun.go)
	wake     chan struct{} // RunMatcher's
}

// New makes the service.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Queued == nil {
		cfg.Queued = func() {}
	}
	s := &Service{cfg: cfg, wake: make(chan struct{}, 1)}
	cfg.Store.OnChange(store.TopicFindings, s.wakeUp)
	return s
}

// ImportOptions describe an import.
type ImportOptions struct {
	Name  string // the file's name as given
	Via   string // "api", "cli" or "sync"
	Actor string
	// Progress, if set, is told the records read so far and the bytes of
	// the file read of size, during the write pass.
	Progress func(records int, read, size int64)
}

// ImportResult is an import's outcome.
type ImportResult struct {
	store.IntelImport
	Problems []feed.Problem // the first maxProblems malformed records (refused: Skipped counts them)
	// Cut counts the records kept with values cut to the feed's caps
	// (feed.MaxDescription and beside it); Cuts are the first maxProblems,
	// each saying what its record lost.
	Cut           int
	Cuts          []feed.Problem
	Notifications int // organizations told of changes
}

const maxProblems = 100

// ImportReader imports a stream (an API body): it is copied to a temporary
// file, at most MaxImportBytes, then imported from there.
func (s *Service) ImportReader(ctx context.Context, r io.Reader, opt ImportOptions) (ImportResult, error) {
	if !s.running.TryLock() {
		return ImportResult{}, ErrImportRunning
	}
	defer s.running.Unlock()
	f, err := os.CreateTemp(s.cfg.TempDir, "intel-import-*")
	if err != nil {
		return ImportResult{}, fmt.Errorf("spool import: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(r, MaxImportBytes+1))
	if err != nil {
		return ImportResult{}, fmt.Errorf("spool import: %w", err)
	}
	if n > MaxImportBytes {
		return ImportResult{}, ErrImportTooLarge
	}
	if n == 0 {
		return ImportResult{}, valid.Field("body", "is empty: send the file to import as the request body")
	}
	// Received whole: the import finishes even if the client goes away.
	return s.importFile(context.WithoutCancel(ctx), f.Name(), opt)
}

// ImportFile imports one file. It is read twice: first to check it whole
// (a malformed file is refused before anything is written: a *valid.Error
// naming the byte offset), then to write it in batches.
func (s *Service) ImportFile(ctx context.Context, path string, opt ImportOptions) (ImportResult, error) {
	if !s.running.TryLock() {
		return ImportResult{}, ErrImportRunning
	}
	defer s.running.Unlock()
	return s.importFile(ctx, path, opt)
}

func (s *Service) importFile(ctx context.Context, path string, opt ImportOptions) (ImportResult, error) {
	format, summary, err := s.check(ctx, path)
	if err != nil {
		return ImportResult{}, err
	}
	imp := store.IntelImport{ID: store.NewID("imp", s.cfg.Now()), Format: string(format), Name: opt.Name, Via: opt.Via, Actor: opt.Actor,
		Status: store.ImportRunning, StartedAt: s.cfg.Now(), Meta: summary.Meta}
	if err := s.cfg.Store.StartIntelImport(ctx, imp, s.cfg.NotifyAgent); err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{IntelImport: imp}
	werr := s.write(ctx, path, format, &res, opt.Progress)
	res.Status = store.ImportCompleted
	finished := s.cfg.Now()
	res.FinishedAt = &finished
	if werr != nil {
		res.Status, res.Error = store.ImportFailed, werr.Error()
		if ctx.Err() != nil { // said for the import history, where "context canceled" means nothing
			res.Error = stoppedImport
		}
	}
	runs, err := s.cfg.Store.FinishIntelImport(context.WithoutCancel(ctx), res.IntelImport, s.cfg.NotifyAgent)
	if err != nil {
		return res, errors.Join(werr, err)
	}
	// The CVEs it changed are queued: their findings are matched now, or,
	// should that fail, by the matcher's loop (which logs why).
	if err := s.Match(ctx); err != nil {
		s.Wake()
	}
	if runs > 0 {
		s.cfg.Queued()
	}
	res.Notifications = runs
	if werr != nil {
		return res, werr
	}
	return res, nil
}

// RecoverStale fails an import whose process ended while it ran, and
// tells its watchers what its committed batches changed, without waiting
// for the next import: the maintenance loop calls it.
func (s *Service) RecoverStale(ctx context.Context) error {
	runs, err := s.cfg.Store.RecoverIntelImport(ctx, s.cfg.NotifyAgent)
	if err != nil {
		return err
	}
	if runs > 0 {
		s.cfg.Queued()
	}
	return nil
}

// stoppedImport is the error of an import its server or command stopped.
const stoppedImport = "The import was stopped before it finished (its server or command stopped); " +
	"the batches it wrote are kept, and importing the file again completes it."

// check detects the format and validates the whole file.
func (s *Service) check(ctx context.Context, path string) (feed.Format, feed.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", feed.Summary{}, fmt.Errorf("open import: %w", err)
	}
	defer f.Close()
	format, r, err := detect(ctx, f)
	if err != nil {
		return "", feed.Summary{}, fileProblem(err)
	}
	summary, err := feed.Validate(format, r)
	if err != nil {
		return "", feed.Summary{}, fileProblem(err)
	}
	return format, summary, nil
}

// fileProblem turns a malformed file into the validation error the caller
// sees; other errors (I/O) pass through.
func fileProblem(err error) error {
	var fe *feed.FileError
	if errors.As(err, &fe) {
		return valid.Field("body", fmt.Sprintf("is not a file Garrison can import: at byte %d: %s", fe.Offset, fe.Message))
	}
	if errors.Is(err, feed.ErrUnknownFormat) {
		return valid.Field("body", "is not a format Garrison imports (NVD CVE API 2.0 JSON, CVE JSON 5, CISA KEV JSON or CSV, "+
			"EPSS CSV, ATT&CK STIX): "+err.Error())
	}
	return err
}

// detect names the format and returns the file's (decompressed) content,
// cut off past MaxDecompressed and when ctx ends.
func detect(ctx context.Context, r io.Reader) (feed.Format, io.Reader, error) {
	format, content, err := feed.Detect(r)
	if err != nil {
		return "", nil, err
	}
	return format, &boundedReader{ctx: ctx, r: content, left: maxDecompressed}, nil
}

// errTooExpanded refuses a file that unpacks past maxDecompressed.
var errTooExpanded = errors.New("the file unpacks to more than 4 GiB")

type boundedReader struct {
	ctx  context.Context
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.left <= 0 {
		return 0, errTooExpanded
	}
	n, err := b.r.Read(p[:min(int64(len(p)), b.left)])
	b.left -= int64(n)
	return n, err
}

// progressReader counts the bytes read for progress reports.
type progressReader struct {
	r    io.Reader
	read atomic.Int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read.Add(int64(n))
	return n, err
}

// write is the second pass: records in batches, each batch one transaction.
func (s *Service) write(ctx context.Context, path string, format feed.Format, res *ImportResult, progress func(int, int64, int64)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open import: %w", err)
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	pr := &progressReader{r: f}
	_, r, err := detect(ctx, pr)
	if err != nil {
		return err
	}
	report := func() {
		if progress != nil {
			progress(res.Records, pr.read.Load(), size)
		}
	}
	// One goroutine parses, this one writes: on two cores decoding the next
	// batch overlaps writing the last. At most two batches wait between them.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *batch, 2)
	var problems, cut []feed.Problem
	skipped, cuts := 0, 0
	parsed := make(chan error, 1)
	go func() {
		defer close(batches)
		b := &batch{}
		send := func() error {
			if b.size() < batchSize {
				return nil
			}
			select {
			case batches <- b:
				b = &batch{}
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		h := feed.Handler{
			CVE: func(c feed.CVE) error {
				b.cves = append(b.cves, c)
				return send()
			},
			KEV: func(k feed.KEV) error {
				b.kev = append(b.kev, k)
				return send()
			},
			EPSS: func(e feed.EPSSScore) error {
				b.epss = append(b.epss, e)
				return send()
			},
			Technique: func(t feed.Technique) error {
				b.techniques = append(b.techniques, store.IntelTechnique{ID: t.ID, Name: t.Name, Tactics: t.Tactics, Deprecated: t.Deprecated})
				return send()
			},
			Problem: func(p feed.Problem) {
				skipped++
				if len(problems) < maxProblems {
					problems = append(problems, p)
				}
			},
			Cut: func(p feed.Problem) {
				cuts++
				if len(cut) < maxProblems {
					cut = append(cut, p)
				}
			},
		}
		_, err := feed.Parse(format, r, h)
		if err == nil && b.size() > 0 {
			select {
			case batches <- b:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		parsed <- err
	}()
	var werr error
	for b := range batches {
		if werr != nil {
			continue // drain, so the parser ends
		}
		if werr = s.flush(ctx, b, res); werr == nil {
			werr = s.cfg.Store.BeatIntelImport(ctx, res.ID)
		}
		if werr != nil {
			cancel()
			continue
		}
		report()
	}
	perr := <-parsed
	res.Skipped, res.Problems, res.Cut, res.Cuts = skipped, problems, cuts, cut
	if werr != nil {
		return werr
	}
	return perr
}

// batch is up to batchSize records, written in one transaction.
type batch struct {
	cves       []feed.CVE
	kev        []feed.KEV
	epss       []feed.EPSSScore
	techniques []store.IntelTechnique
}

func (b *batch) size() int { return len(b.cves) + len(b.kev) + len(b.epss) + len(b.techniques) }

// flush reads what the store holds of the batch's CVEs, merges the new
// records in, and writes only what changed, with the notable changes.
func (s *Service) flush(ctx context.Context, b *batch, res *ImportResult) error {
	st, now := s.cfg.Store, s.cfg.Now()
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, c := range b.cves {
		add(c.ID)
	}
	for _, k := range b.kev {
		add(k.CVEID)
	}
	for _, e := range b.epss {
		add(e.CVEID)
	}
	rows, err := st.IntelRowsFor(ctx, ids)
	if err != nil {
		return err
	}
	watched, err := st.WatchedAmong(ctx, ids)
	if err != nil {
		return err
	}
	m := &merger{rows: rows, touched: map[string]bool{}, kevOut: map[string]json.RawMessage{}, fresh: map[string][2]*feed.CVE{}}
	for _, c := range b.cves {
		if err := m.cve(c); err != nil {
			return err
		}
	}
	for _, k := range b.kev {
		if err := m.kevEntry(k); err != nil {
			return err
		}
	}
	for _, e := range b.epss {
		m.epssScore(e)
	}
	out := store.IntelBatch{KEV: m.kevOut, EPSS: m.epssOut, Techniques: b.techniques}
	for _, id := range ids {
		if !m.touched[id] {
			continue
		}
		row, changes, err := m.rebuild(id, now, watched[id])
		if err != nil {
			return err
		}
		if row == nil {
			continue
		}
		out.CVEs = append(out.CVEs, row.IntelCVE)
		for _, c := range changes {
			out.Changes = append(out.Changes, store.IntelChange{CVEID: id, ImportID: res.ID, Field: c.Field, Before: c.Before, After: c.After, At: now})
		}
		if row.Newest != nil && (res.Newest == nil || row.Newest.After(*res.Newest)) {
			res.Newest = row.Newest
		}
	}
	res.Records += b.size()
	res.Added += m.added
	res.Changed += m.changed
	res.Unchanged += m.unchanged + len(b.techniques)
	if len(out.CVEs) > 0 || len(out.KEV) > 0 || len(out.EPSS) > 0 || len(out.Techniques) > 0 {
		return st.WriteIntel(ctx, out)
	}
	return nil
}

// merger applies a batch's records over what the store holds.
type merger struct {
	rows                      store.IntelRows
	touched                   map[string]bool // CVEs whose view must be rebuilt
	kevOut                    map[string]json.RawMessage
	epssOut                   []store.IntelEPSS
	added, changed, unchanged int
	// fresh are the batch's records as parsed (NVD, CVE 5), so a view is
	// rebuilt without decoding what was just encoded.
	fresh map[string][2]*feed.CVE
}

func (m *merger) cve(c feed.CVE) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode %s: %w", c.ID, err)
	}
	row, exists := m.rows.CVEs[c.ID]
	old := row.NVD
	if c.Source == feed.CVE5 {
		old = row.CVE5
	}
	if exists && old != nil {
		oldRaw, err := unpack(old)
		if err != nil {
			return fmt.Errorf("stored %s: %w", c.ID, err)
		}
		if bytes.Equal(oldRaw, raw) {
			m.unchanged++
			return nil
		}
		// An older copy of a record (a stale mirror, an old file) never
		// replaces a newer one.
		var stored struct{ Modified time.Time }
		if json.Unmarshal(oldRaw, &stored) == nil && c.Modified.Before(stored.Modified) {
			m.unchanged++
			return nil
		}
		m.changed++
	} else {
		m.added++
	}
	data := pack(raw)
	row.ID = c.ID
	fresh := m.fresh[c.ID]
	if c.Source == feed.CVE5 {
		row.CVE5, fresh[1] = data, &c
	} else {
		row.NVD, fresh[0] = data, &c
	}
	m.rows.CVEs[c.ID] = row
	m.fresh[c.ID] = fresh
	m.touched[c.ID] = true
	return nil
}

func (m *merger) kevEntry(k feed.KEV) error {
	data, err := json.Marshal(k)
	if err != nil {
		return fmt.Errorf("encode KEV %s: %w", k.CVEID, err)
	}
	old, exists := m.rows.KEV[k.CVEID]
	switch {
	case exists && bytes.Equal(old, data):
		m.unchanged++
		return nil
	case exists:
		m.changed++
	default:
		m.added++
	}
	m.rows.KEV[k.CVEID], m.kevOut[k.CVEID] = data, data
	m.touched[k.CVEID] = true
	return nil
}

func (m *merger) epssScore(e feed.EPSSScore) {
	row := store.IntelEPSS{CVEID: e.CVEID, Score: e.Score, Percentile: e.Percentile, ScoreDate: e.ScoreDate}
	old, exists := m.rows.EPSS[e.CVEID]
	switch {
	case exists && old == row:
		m.unchanged++
		return
	case exists:
		m.changed++
	default:
		m.added++
	}
	m.rows.EPSS[e.CVEID] = row
	m.epssOut = append(m.epssOut, row)
	// A score for a CVE the store does not hold waits in intel_epss until
	// a record of it arrives.
	if _, ok := m.rows.CVEs[e.CVEID]; ok {
		m.touched[e.CVEID] = true
	}
}

// rebuiltRow is a CVE row to write, with the date of its newest record.
type rebuiltRow struct {
	store.IntelCVE
	Newest *time.Time
}

// rebuild computes a touched CVE's view from all its sources. The view's
// time moves only when the view changed; the changes recorded are the
// notable ones, and the arrival of a CVE someone watches.
func (m *merger) rebuild(id string, now time.Time, watched bool) (*rebuiltRow, []Change, error) {
	row := m.rows.CVEs[id]
	row.ID = id
	var src sources
	var newest *time.Time
	fresh := m.fresh[id]
	for i, part := range []struct {
		data []byte
		dst  **feed.CVE
	}{{row.NVD, &src.nvd}, {row.CVE5, &src.cve5}} {
		if part.data == nil {
			continue
		}
		if c := fresh[i]; c != nil {
			*part.dst = c
			if d := recordDate(c); newest == nil || d.After(*newest) {
				newest = &d
			}
			continue
		}
		raw, err := unpack(part.data)
		if err != nil {
			return nil, nil, fmt.Errorf("stored %s: %w", id, err)
		}
		var c feed.CVE
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, nil, fmt.Errorf("decode stored %s: %w", id, err)
		}
		*part.dst = &c
		if d := recordDate(&c); newest == nil || d.After(*newest) {
			newest = &d
		}
	}
	if data, ok := m.rows.KEV[id]; ok {
		var k feed.KEV
		if err := json.Unmarshal(data, &k); err != nil {
			return nil, nil, fmt.Errorf("decode stored KEV %s: %w", id, err)
		}
		src.kev = &k
	}
	if e, ok := m.rows.EPSS[id]; ok {
		src.epss = &feed.EPSSScore{CVEID: id, Score: e.Score, Percentile: e.Percentile, ScoreDate: e.ScoreDate}
	}
	if src.nvd == nil && src.cve5 == nil && src.kev == nil {
		return nil, nil, nil
	}
	view, targets := buildView(id, src)
	viewJSON, err := json.Marshal(view)
	if err != nil {
		return nil, nil, fmt.Errorf("encode view %s: %w", id, err)
	}
	targetsJSON, err := json.Marshal(targets)
	if err != nil {
		return nil, nil, fmt.Errorf("encode targets %s: %w", id, err)
	}
	var changes []Change
	if row.View == nil {
		if watched {
			changes = diff(nil, &view)
		}
		row.ViewAt = now
	} else if !bytes.Equal(row.View, viewJSON) {
		var before View
		if err := json.Unmarshal(row.View, &before); err != nil {
			return nil, nil, fmt.Errorf("decode stored view %s: %w", id, err)
		}
		changes = diff(&before, &view)
		row.ViewAt = now
	}
	packed := pack(targetsJSON)
	// Findings are matched again when what they read changed: the targets,
	// or the view (score, KEV, EPSS).
	row.Rematch = row.View == nil || !bytes.Equal(row.View, viewJSON) || !bytes.Equal(row.Targets, packed)
	row.Products = targetKeys(targets)
	if row.Facts, err = factsOf(view); err != nil {
		return nil, nil, fmt.Errorf("encode facts %s: %w", id, err)
	}
	row.View, row.Targets, row.Vendor, row.Product = viewJSON, packed, view.Vendor, view.Product
	m.rows.CVEs[id] = row
	return &rebuiltRow{IntelCVE: row, Newest: newest}, changes, nil
}

// ErrImportForbidden refuses an API import by an organization that does
// not operate the appliance.
var ErrImportForbidden = fault.New(fault.Forbidden,
	"Only administrators of the appliance operator's organization may import intelligence")

// MayImport says whether admins of the organization may feed the
// appliance-wide store through the API: the store is shared by every
// organization, so only the operator's may, the one named by
// Config.ImportOrgs or else the first organization the appliance made.
func (s *Service) MayImport(ctx context.Context, orgID string) error {
	if len(s.cfg.ImportOrgs) > 0 {
		if slices.Contains(s.cfg.ImportOrgs, orgID) {
			return nil
		}
		return ErrImportForbidden
	}
	first, err := s.cfg.Store.FirstOrgID(ctx, s.cfg.NotOperator)
	if err != nil {
		return err
	}
	if first != orgID {
		return ErrImportForbidden
	}
	return nil
}
