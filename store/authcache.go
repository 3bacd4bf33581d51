package store

import (
	"context"
	"database/sql"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// authCache holds what authenticating a request reads: a session's user
// (role, plan, token_version, confirmed address) with whether its token
// was revoked, and API keys (scope, plan, expiry, revocation). Most
// requests then read no row. It stays exact by a generation: every store
// method that changes these facts bumps it once its transaction has
// committed, and entries of an older generation are not used. A change
// made by another process (the admin CLI) bumps it too: every process
// touches the database's auth epoch file (garrison.db-auth) after such a
// change, and the server looks at the file's time on every lookup, which
// costs a stat, not a read.
type authCache struct {
	gen       atomic.Int64
	epochPath string
	epochMu   sync.Mutex
	epochSeen time.Time // the file's time when last looked at

	mu       sync.Mutex
	sessions map[sessionKey]sessionFacts
	keys     map[string]keyFacts // by hash
}

type sessionKey struct{ userID, jti string }

type sessionFacts struct {
	gen     int64
	user    User
	revoked bool
}

type keyFacts struct {
	gen int64
	key APIKey
}

// maxAuthEntries bounds the cache; past it, it starts over.
const maxAuthEntries = 100_000

func (c *authCache) init(dbPath string) {
	c.epochPath = dbPath + "-auth"
	if fi, err := os.Stat(c.epochPath); err == nil {
		c.epochSeen = fi.ModTime()
	}
	c.sessions, c.keys = map[sessionKey]sessionFacts{}, map[string]keyFacts{}
}

// current is the generation to read and tag entries with, after taking in
// a change another process announced.
func (c *authCache) current() int64 {
	var mod time.Time
	if fi, err := os.Stat(c.epochPath); err == nil {
		mod = fi.ModTime()
	}
	c.epochMu.Lock()
	if !mod.Equal(c.epochSeen) {
		c.epochSeen = mod
		c.gen.Add(1)
	}
	c.epochMu.Unlock()
	return c.gen.Load()
}

// changed retires every entry, and tells other processes to do the same.
func (c *authCache) changed() {
	c.gen.Add(1)
	now := time.Now()
	if err := os.WriteFile(c.epochPath, []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), 0o600); err == nil {
		// Our own change is taken in already.
		if fi, err := os.Stat(c.epochPath); err == nil {
			c.epochMu.Lock()
			c.epochSeen = fi.ModTime()
			c.epochMu.Unlock()
		}
	}
}

func (c *authCache) session(userID, jti string, gen int64) (sessionFacts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.sessions[sessionKey{userID, jti}]
	return f, ok && f.gen == gen
}

func (c *authCache) putSession(userID, jti string, f sessionFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sessions) >= maxAuthEntries {
		clear(c.sessions)
	}
	c.sessions[sessionKey{userID, jti}] = f
}

func (c *authCache) key(hash []byte, gen int64) (APIKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.keys[string(hash)]
	return f.key, ok && f.gen == gen
}

func (c *authCache) putKey(hash []byte, f keyFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.keys) >= maxAuthEntries {
		clear(c.keys)
	}
	c.keys[string(hash)] = f
}

// writeAuth is write for changes to what authentication reads: the cache
// learns of them once they are committed.
func (s *Store) writeAuth(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.write(ctx, fn); err != nil {
		return err
	}
	s.auth.changed()
	return nil
}
