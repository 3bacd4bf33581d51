package intel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"time"

	"garrison/store"
)

// MaxSyncBytes bounds one file fetched by a sync.
const MaxSyncBytes = 2 << 30

// Syncer pulls intelligence files from mirrors over HTTP(S), for connected
// installs: each URL with a conditional request (ETag, Last-Modified) every
// interval, imported when it changed. A failure is logged and retried with
// a doubling backoff, from a minute up to the interval.
type Syncer struct {
	Service  *Service
	URLs     []string
	Interval time.Duration
	Client   *http.Client
	Log      *slog.Logger
	// minBackoff is the first retry's wait (tests shorten it).
	minBackoff time.Duration
}

// Run syncs until ctx ends.
func (y *Syncer) Run(ctx context.Context) {
	first := y.minBackoff
	if first == 0 {
		first = time.Minute
	}
	backoff := first
	for {
		wait := y.Interval
		if err := y.SyncOnce(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			y.Log.Error("intelligence sync failed; retrying", "err", err, "retry_in", backoff.String())
			wait, backoff = backoff, min(2*backoff, y.Interval)
		} else {
			backoff = first
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// SyncOnce fetches each URL once and imports those that changed. It goes on
// past a failed URL and returns the failures joined.
func (y *Syncer) SyncOnce(ctx context.Context) error {
	var errs []error
	for _, u := range y.URLs {
		if err := y.syncURL(ctx, u); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u, err))
		}
	}
	return errors.Join(errs...)
}

func (y *Syncer) syncURL(ctx context.Context, url string) error {
	st := y.Service.cfg.Store
	state, err := st.SyncStateOf(ctx, url)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if state.ETag != "" {
		req.Header.Set("If-None-Match", state.ETag)
	}
	if state.LastModified != "" {
		req.Header.Set("If-Modified-Since", state.LastModified)
	}
	res, err := y.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	state.CheckedAt = y.Service.cfg.Now()
	switch {
	case res.StatusCode == http.StatusNotModified:
		return st.SaveSyncState(ctx, state)
	case res.StatusCode != http.StatusOK:
		return fmt.Errorf("answered %s", res.Status)
	}
	f, err := os.CreateTemp(y.Service.cfg.TempDir, "intel-sync-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(res.Body, MaxSyncBytes+1))
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	if n > MaxSyncBytes {
		return fmt.Errorf("the file is larger than %d bytes", MaxSyncBytes)
	}
	imp, err := y.Service.ImportFile(ctx, f.Name(), ImportOptions{Name: path.Base(req.URL.Path), Via: "sync", Actor: "sync:" + url})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	y.Log.Info("intelligence synced", "url", url, "import_id", imp.ID, "records", imp.Records, "added", imp.Added, "changed", imp.Changed)
	state.ETag, state.LastModified = res.Header.Get("ETag"), res.Header.Get("Last-Modified")
	// The import is in; what it came from is recorded even when shutdown
	// began meanwhile, or the next start would download and import it again.
	saveCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return st.SaveSyncState(saveCtx, state)
}

// SyncState reads what a sync last fetched from the URL.
func (s *Service) SyncState(ctx context.Context, url string) (store.SyncState, error) {
	return s.cfg.Store.SyncStateOf(ctx, url)
}
