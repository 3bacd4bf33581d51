package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// authCache holds what authenticating a request reads: a session's user
// (role, plan, token_version, confirmed address) with whether its token
// was revoked, and API keys (scope, plan, expiry, revocation). Most
// requests then read no row. It stays exact by a generation: every store
// method that changes these facts bumps it once its transaction has
// committed, and entries of an older generation are not used. A change
// made by another process (the admin CLI) bumps it too: every process
// writes 8 fresh random bytes at the start of the database's auth epoch
// file (garrison.db-auth) after such a change, and the server reads them
// on every lookup (one pread on a descriptor it keeps open). The file's
// content decides, not its time: a file system's clock ticks in
// milliseconds, and two changes within one tick would look like one.
type authCache struct {
	gen       atomic.Int64
	epoch     *os.File // the auth epoch file, nil until open
	epochMu   sync.Mutex
	epochSeen [8]byte // its content when last looked at

	mu       sync.Mutex
	sessions map[sessionKey]sessionFacts
	keys     map[string]keyFacts // by hash
}

// sessionKey is a token (jti) of a user acting in an organization.
type sessionKey struct{ userID, orgID, jti string }

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

func (c *authCache) init() {
	c.sessions, c.keys = map[sessionKey]sessionFacts{}, map[string]keyFacts{}
}

// open opens (creating if needed) the auth epoch file of the database at
// dbPath. Without it another process's changes would go unseen, so a
// store that cannot open it does not open.
func (c *authCache) open(dbPath string) error {
	f, err := os.OpenFile(dbPath+"-auth", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the auth epoch file: %w", err)
	}
	c.epoch = f
	c.epochSeen = c.readEpoch()
	return nil
}

func (c *authCache) close() error {
	if c.epoch == nil {
		return nil
	}
	return c.epoch.Close()
}

// readEpoch is the epoch file's first 8 bytes; a shorter file (an old
// version's, or one being written) reads as what it holds, zero-padded.
// An unreadable file reads as zeros: a change once it reads again.
func (c *authCache) readEpoch() (v [8]byte) {
	if c.epoch != nil {
		c.epoch.ReadAt(v[:], 0)
	}
	return v
}

// current is the generation to read and tag entries with, after taking in
// a change another process announced.
func (c *authCache) current() int64 {
	v := c.readEpoch()
	c.epochMu.Lock()
	if v != c.epochSeen {
		c.epochSeen = v
		c.gen.Add(1)
	}
	c.epochMu.Unlock()
	return c.gen.Load()
}

// changed retires every entry, and tells other processes to do the same.
func (c *authCache) changed() {
	c.gen.Add(1)
	if c.epoch == nil {
		return
	}
	var v [8]byte
	rand.Read(v[:])
	if _, err := c.epoch.WriteAt(v[:], 0); err == nil {
		// Our own change is taken in already. Another process's write
		// landing meanwhile differs from v, so it is seen next lookup.
		c.epochMu.Lock()
		c.epochSeen = v
		c.epochMu.Unlock()
	}
}

func (c *authCache) session(k sessionKey, gen int64) (sessionFacts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.sessions[k]
	return f, ok && f.gen == gen
}

func (c *authCache) putSession(k sessionKey, f sessionFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sessions) >= maxAuthEntries {
		clear(c.sessions)
	}
	c.sessions[k] = f
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
	if err := s.writeAnnouncing(ctx, TopicAuth, fn); err != nil {
		return err
	}
	s.auth.changed()
	return nil
}
