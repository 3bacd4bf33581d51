package intel

import (
	"context"
	"fmt"
	"time"

	"garrison/store"
)

// Batches of the matching.
const (
	matchJobsPerRound = 500
	assetsPerMatch    = 100
	cvesPerMatch      = 2000 // an import's changes: their assets read once
	fullAssetPage     = 1000
	fullCVEPage       = 2000
)

// Match drains the match queue: assets and CVEs changed since they were
// last matched, and the full match after an upgrade; it reopens accepted
// risks whose expiry passed. Matching is serialized in the process: each
// round reads what is current, and a change made meanwhile is queued again.
func (s *Service) Match(ctx context.Context) error {
	s.matching.Lock()
	defer s.matching.Unlock()
	if _, err := s.cfg.Store.ExpireAcceptedRisk(ctx); err != nil {
		return fmt.Errorf("expire accepted risks: %w", err)
	}
	for {
		jobs, err := s.cfg.Store.MatchJobs(ctx, matchJobsPerRound)
		if err != nil || len(jobs) == 0 {
			return err
		}
		var assets, cves []string
		full := false
		for _, j := range jobs {
			switch j.Kind {
			case store.MatchAll:
				full = true
			case store.MatchAsset:
				assets = append(assets, j.Key)
			case store.MatchCVE:
				cves = append(cves, j.Key)
			}
		}
		if full { // covers every job queued before it starts
			stamp := s.cfg.Store.MatchStamp()
			if err := s.matchEverything(ctx); err != nil {
				return fmt.Errorf("match everything: %w", err)
			}
			if err := s.cfg.Store.ClearMatchQueue(ctx, stamp); err != nil {
				return err
			}
		} else {
			if err := eachChunk(assets, assetsPerMatch, func(ids []string) error { _, err := s.matchAssets(ctx, ids); return err }); err != nil {
				return fmt.Errorf("match assets: %w", err)
			}
			if err := eachChunk(cves, cvesPerMatch, func(ids []string) error { _, err := s.matchCVEs(ctx, ids); return err }); err != nil {
				return fmt.Errorf("match cves: %w", err)
			}
		}
		if err := s.cfg.Store.DoneMatching(ctx, jobs); err != nil {
			return err
		}
	}
}

// MatchAssets matches assets just written, for the answer to show their
// findings. When a long match holds the matcher (a full match, a large
// import's), the write does not wait for it: the assets stay queued and
// the matcher takes them next.
func (s *Service) MatchAssets(ctx context.Context, ids []string) error {
	if !s.matching.TryLock() {
		s.Wake()
		return nil
	}
	defer s.matching.Unlock()
	jobs, err := s.cfg.Store.MatchJobsOf(ctx, store.MatchAsset, ids)
	if err != nil {
		return err
	}
	if err := eachChunk(ids, assetsPerMatch, func(part []string) error { _, err := s.matchAssets(ctx, part); return err }); err != nil {
		return err
	}
	return s.cfg.Store.DoneMatching(ctx, jobs)
}

func eachChunk(ids []string, n int, f func([]string) error) error {
	for len(ids) > 0 {
		k := min(n, len(ids))
		if err := f(ids[:k]); err != nil {
			return err
		}
		ids = ids[k:]
	}
	return nil
}

// matchEverything indexes every asset and CVE and matches them all: the
// first start of a release with findings, or a rebuild.
func (s *Service) matchEverything(ctx context.Context) error {
	var all []store.Asset
	for after := ""; ; {
		page, err := s.cfg.Store.EveryAsset(ctx, after, fullAssetPage)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for i := range page {
			page[i].Products = productKeys(page[i].Software)
		}
		if err := s.cfg.Store.IndexAssetProducts(ctx, page); err != nil {
			return err
		}
		all = append(all, page...)
		after = page[len(page)-1].ID
	}
	m := matcherOf(all)
	byID := make(map[string]*store.Asset, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	reason, notice := fixedReason(byID), findingNotice(byID)
	// Reading, decoding and matching a page overlaps writing the last
	// one's findings: the two halves are about equal, on two cores.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan matchedPage, 1)
	readErr := make(chan error, 1)
	go func() {
		defer close(pages)
		readErr <- s.matchPages(ctx, m, pages)
	}()
	for p := range pages {
		if err := s.cfg.Store.IndexCVEProducts(ctx, p.products); err != nil {
			return err
		}
		if _, err := s.cfg.Store.SyncFindings(ctx, store.FindingScope{CVEIDs: p.ids}, p.matches, reason, notice); err != nil {
			return err
		}
	}
	return <-readErr
}

// matchedPage is a page of CVEs matched, for its writing.
type matchedPage struct {
	ids      []string
	products map[string][]store.ProductKey
	matches  []store.FindingMatch
}

// matchPages reads every CVE a page at a time and matches each page.
func (s *Service) matchPages(ctx context.Context, m *matcher, out chan<- matchedPage) error {
	for after := ""; ; {
		page, err := s.cfg.Store.EveryCVE(ctx, after, fullCVEPage)
		if err != nil || len(page) == 0 {
			return err
		}
		cves := make(map[string]cveData, len(page))
		p := matchedPage{products: make(map[string][]store.ProductKey, len(page)), ids: make([]string, len(page))}
		for i, c := range page {
			d, err := decodeCVE(c)
			if err != nil {
				return err
			}
			cves[c.ID], p.products[c.ID], p.ids[i] = d, targetKeys(d.targets), c.ID
		}
		p.matches = findingMatches(m, cves)
		select {
		case out <- p:
		case <-ctx.Done():
			return ctx.Err()
		}
		after = page[len(page)-1].ID
	}
}

// RunMatcher drains the match queue now and every interval (what a crash
// left, expiring risk acceptances), and whenever Wake is called, until
// ctx ends.
func (s *Service) RunMatcher(ctx context.Context, interval time.Duration, log interface{ Warn(string, ...any) }) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.Match(ctx); err != nil && ctx.Err() == nil {
			log.Warn("match findings", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// Wake asks the matcher to drain the queue soon, on whichever node of a
// cluster matches.
func (s *Service) Wake() { s.cfg.Store.Announce(store.TopicFindings) }

func (s *Service) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
