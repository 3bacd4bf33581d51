package credential

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// DefaultIterations is the PBKDF2-HMAC-SHA256 work factor (OWASP 2023).
const DefaultIterations = 600_000

// Password length bounds in bytes. The maximum bounds hashing cost; nothing
// is truncated.
const (
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

const (
	saltLen   = 16
	keyLen    = 32
	hashLabel = "pbkdf2-sha256"
)

// ErrMalformedHash means a stored hash could not be parsed.
var ErrMalformedHash = errors.New("malformed password hash")

// Hasher hashes and verifies passwords. It bounds how many hashes run at
// once, so a login flood queues instead of starving every other request.
type Hasher struct {
	iterations int
	slots      chan struct{}
}

// NewHasher returns a Hasher at the given iteration count (tests pass a low
// count; production uses DefaultIterations). It derives nothing up front,
// so a server starts without paying for a hash.
func NewHasher(iterations int) *Hasher {
	return &Hasher{iterations: iterations, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Hash returns "pbkdf2-sha256$<iterations>$<salt>$<key>", base64url without padding.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	return h.derive(ctx, password, nil, h.iterations)
}

func (h *Hasher) derive(ctx context.Context, password string, salt []byte, iterations int) (string, error) {
	if salt == nil {
		salt = make([]byte, saltLen)
		rand.Read(salt)
	}
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	key, err := pbkdf2.Key(sha256.New, password, salt, iterations, keyLen)
	<-h.slots
	if err != nil {
		return "", fmt.Errorf("pbkdf2: %w", err)
	}
	enc := base64.RawURLEncoding
	return hashLabel + "$" + strconv.Itoa(iterations) + "$" + enc.EncodeToString(salt) + "$" + enc.EncodeToString(key), nil
}

// Verify reports whether password matches encoded, and whether the hash
// should be replaced because it was made with fewer iterations than now.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (ok, rehash bool, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 4 || parts[0] != hashLabel {
		return false, false, ErrMalformedHash
	}
	iterations, err := strconv.Atoi(parts[1])
	if err != nil || iterations < 1 {
		return false, false, ErrMalformedHash
	}
	salt, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false, false, ErrMalformedHash
	}
	got, err := h.derive(ctx, password, salt, iterations)
	if err != nil {
		return false, false, err
	}
	ok = subtle.ConstantTimeCompare([]byte(got), []byte(encoded)) == 1
	return ok, ok && iterations < h.iterations, nil
}

// VerifyNobody spends the same time as Verify on a real account, for logins
// with an unknown e-mail address: the same derivation at today's work
// factor (the comparison after it costs nothing beside it).
func (h *Hasher) VerifyNobody(ctx context.Context, password string) error {
	_, err := h.derive(ctx, password, nil, h.iterations)
	return err
}
