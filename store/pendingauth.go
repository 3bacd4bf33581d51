package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// On a full disk a logout still takes effect at once: what it would have
// written (a revoked session token, or every session of a user ended) is
// held in memory, applied to every user the store reads, and written when
// writes work again (Maintain tries each second, Close once more). A
// server stopped before then forgets it: the token lives until it expires.
type pendingAuth struct {
	mu      sync.Mutex
	n       atomic.Int32     // entries held, so the empty case takes no lock
	revoked map[string]int64 // session token id → its expiry (ms)
	ended   map[string]int64 // user id → the token version its sessions need now
}

func (p *pendingAuth) count() {
	p.n.Store(int32(len(p.revoked) + len(p.ended)))
}

// revoke holds a revocation; false when the token was revoked already (two
// refreshes of one token: only one may win).
func (p *pendingAuth) revoke(jti string, expires time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.revoked == nil {
		p.revoked = map[string]int64{}
	}
	if _, ok := p.revoked[jti]; ok {
		return false
	}
	p.revoked[jti] = ms(expires)
	p.count()
	return true
}

func (p *pendingAuth) isRevoked(jti string) bool {
	if p.n.Load() == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.revoked[jti]
	return ok
}

func (p *pendingAuth) end(userID string, version int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended == nil {
		p.ended = map[string]int64{}
	}
	p.ended[userID] = max(p.ended[userID], version)
	p.count()
}

// apply raises a user's token version to the one its ended sessions need.
func (p *pendingAuth) apply(u User) User {
	if p.n.Load() == 0 {
		return u
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.ended[u.ID]; ok && v > u.TokenVersion {
		u.TokenVersion = v
	}
	return u
}

// snapshot copies what is held, to write it.
func (p *pendingAuth) snapshot() (revoked, ended map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	revoked, ended = make(map[string]int64, len(p.revoked)), make(map[string]int64, len(p.ended))
	for k, v := range p.revoked {
		revoked[k] = v
	}
	for k, v := range p.ended {
		ended[k] = v
	}
	return revoked, ended
}

// written forgets what was written (unless it changed since).
func (p *pendingAuth) written(revoked, ended map[string]int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range revoked {
		delete(p.revoked, k)
	}
	for k, v := range ended {
		if p.ended[k] == v {
			delete(p.ended, k)
		}
	}
	p.count()
}

// flushPendingAuth writes what logouts on a full disk left in memory.
func (s *Store) flushPendingAuth(ctx context.Context) error {
	if s.pending.n.Load() == 0 {
		return nil
	}
	revoked, ended := s.pending.snapshot()
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		for jti, expires := range revoked {
			if _, err := tx.ExecContext(ctx, `INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, jti, expires); err != nil {
				return fmt.Errorf("write a held revocation: %w", err)
			}
		}
		for userID, version := range ended {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET token_version = MAX(token_version, ?) WHERE id = ?`, version, userID); err != nil {
				return fmt.Errorf("write held ended sessions: %w", err)
			}
		}
		return nil
	})
	if err == nil {
		s.pending.written(revoked, ended)
	}
	return err
}
