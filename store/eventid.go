package store

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
)

// eventIDs derives an event's public id from its seq, so the id is not
// stored (a 30-byte column and a unique index were a fifth of an event's
// bytes). The seq is encrypted with AES under a key kept in the database
// (event_id_key), as one block of the seq and eight zero bytes: ids look
// as random as NewID's, say nothing of how many events other
// organizations send, and one that was not made here decrypts to a block
// whose second half is not zero. Events stored before keep their stored
// id (legacy_id), found when an id does not decrypt to a seq.
type eventIDs struct {
	block cipher.Block
}

const eventIDPrefix = "evt_"

// loadEventIDs reads the database's key. A schema without one (a test's
// schema of a few tables) has no events to name: a key of its own does.
func loadEventIDs(ctx context.Context, db *sql.DB) (eventIDs, error) {
	key := make([]byte, 16)
	err := db.QueryRowContext(ctx, `SELECT key FROM event_id_key WHERE id = 1`).Scan(&key)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		rand.Read(key)
		err = nil
	}
	if err != nil {
		return eventIDs{}, fmt.Errorf("read the event id key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return eventIDs{}, fmt.Errorf("event id key: %w", err)
	}
	return eventIDs{block: block}, nil
}

// of is the id of the event stored at seq.
func (k eventIDs) of(seq int64) string {
	var plain, sealed [16]byte
	binary.BigEndian.PutUint64(plain[:8], uint64(seq))
	k.block.Encrypt(sealed[:], plain[:])
	return eventIDPrefix + encode128(sealed)
}

// seqOf is the seq an id was derived from; false when it was not derived
// by of (a stored legacy id, or no id of this database at all).
func (k eventIDs) seqOf(id string) (int64, bool) {
	rest, ok := strings.CutPrefix(id, eventIDPrefix)
	if !ok {
		return 0, false
	}
	sealed, ok := decode128(rest)
	if !ok {
		return 0, false
	}
	var plain [16]byte
	k.block.Decrypt(plain[:], sealed[:])
	if binary.BigEndian.Uint64(plain[8:]) != 0 {
		return 0, false
	}
	seq := int64(binary.BigEndian.Uint64(plain[:8]))
	return seq, seq > 0
}
