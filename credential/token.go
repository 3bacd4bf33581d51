package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// APIKeyPrefix marks Garrison API keys so secret scanners can find leaks.
const APIKeyPrefix = "svc_live_"

const (
	apiKeyRandomLen  = 32
	apiKeyDisplayLen = len(APIKeyPrefix) + 4 // prefix plus a few characters, enough to tell keys apart
	alphanumerics    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// NewAPIKey returns a fresh key, its SHA-256 and its display prefix.
func NewAPIKey() (key string, hash []byte, display string) {
	key = APIKeyPrefix + randomAlphanumerics(apiKeyRandomLen)
	return key, Hash(key), key[:apiKeyDisplayLen]
}

// randomAlphanumerics draws n characters uniformly from [A-Za-z0-9] with
// rejection sampling, so no character is likelier than another.
func randomAlphanumerics(n int) string {
	var b strings.Builder
	buf := make([]byte, 64)
	for b.Len() < n {
		rand.Read(buf)
		for _, c := range buf {
			// 62*4 = 248: bytes at or above it would bias the first characters.
			if c < 248 && b.Len() < n {
				b.WriteByte(alphanumerics[c%62])
			}
		}
	}
	return b.String()
}

// LooksLikeAPIKey reports whether a bearer value is an API key rather than a JWT.
func LooksLikeAPIKey(bearer string) bool { return strings.HasPrefix(bearer, APIKeyPrefix) }

// NewToken returns 32 random bytes as base64url text (for reset, verification
// and invite links) and the SHA-256 that is stored instead of it.
func NewToken() (token string, hash []byte) {
	raw := make([]byte, 32)
	rand.Read(raw)
	token = base64.RawURLEncoding.EncodeToString(raw)
	return token, Hash(token)
}

// Hash is the SHA-256 under which tokens and keys are stored and looked up.
// High-entropy secrets need no salt or stretching.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// WellFormedAPIKey reports whether s has the exact shape of a Garrison key,
// so malformed guesses are refused before any lookup.
func WellFormedAPIKey(s string) bool {
	if len(s) != len(APIKeyPrefix)+apiKeyRandomLen || !strings.HasPrefix(s, APIKeyPrefix) {
		return false
	}
	return strings.Trim(s[len(APIKeyPrefix):], alphanumerics) == ""
}

// RandomText returns n characters drawn uniformly from [A-Za-z0-9].
func RandomText(n int) string { return randomAlphanumerics(n) }
