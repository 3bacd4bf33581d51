package account

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"garrison/store"
)

// keyUseFlushEvery is how often key uses are written down: last_used_at is
// kept to the minute, and no request waits for the write.
const keyUseFlushEvery = 30 * time.Second

// KeyUse remembers when API keys were last used and writes it to the store
// in the background (Run), so authenticating a request never writes.
// Listings (Keys) show what is remembered and not yet written.
type KeyUse struct {
	store *store.Store
	log   *slog.Logger
	mu    sync.Mutex
	seen  map[string]time.Time // key id → last use not yet written
}

// KeyUseConfig is what the tracker needs.
type KeyUseConfig struct {
	Store *store.Store
	Log   *slog.Logger
}

// NewKeyUse builds the tracker over the store.
func NewKeyUse(c KeyUseConfig) *KeyUse {
	return &KeyUse{store: c.Store, log: c.Log, seen: map[string]time.Time{}}
}

// Seen records a use of the key at the given time.
func (k *KeyUse) Seen(keyID string, at time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if at.After(k.seen[keyID]) {
		k.seen[keyID] = at
	}
}

// lastUsed is the newest use of a key remembered and not yet written.
func (k *KeyUse) lastUsed(keyID string) (time.Time, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.seen[keyID]
	return t, ok
}

// Flush writes the remembered uses down; those it cannot write stay
// remembered for the next round.
func (k *KeyUse) Flush(ctx context.Context) error {
	k.mu.Lock()
	pending := k.seen
	k.seen = map[string]time.Time{}
	k.mu.Unlock()
	if err := k.store.TouchAPIKeys(ctx, pending); err != nil {
		for id, at := range pending {
			k.Seen(id, at)
		}
		return err
	}
	return nil
}

// Run writes key uses down every half minute, and once more when ctx ends.
func (k *KeyUse) Run(ctx context.Context) {
	t := time.NewTicker(keyUseFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := k.Flush(last); err != nil {
				k.log.Warn("record api key use at shutdown", "err", err)
			}
			return
		case <-t.C:
			if err := k.Flush(ctx); err != nil && ctx.Err() == nil {
				k.log.Warn("record api key use", "err", err)
			}
		}
	}
}

// Keys lists the organization's API keys, with uses not yet written down.
func (k *KeyUse) Keys(ctx context.Context, orgID string, p store.Page) ([]store.APIKey, int, error) {
	keys, total, err := k.store.APIKeys(ctx, orgID, p)
	for i := range keys {
		if at, ok := k.lastUsed(keys[i].ID); ok && (keys[i].LastUsedAt == nil || at.After(*keys[i].LastUsedAt)) {
			keys[i].LastUsedAt = &at
		}
	}
	return keys, total, err
}

// Keys lists an organization's API keys with their last use as remembered.
func (a *Accounts) Keys(ctx context.Context, orgID string, p store.Page) ([]store.APIKey, int, error) {
	return a.keyUse.Keys(ctx, orgID, p)
}

// KeyUse is the tracker of API keys' last use, for the app to run.
func (a *Accounts) KeyUse() *KeyUse { return a.keyUse }
