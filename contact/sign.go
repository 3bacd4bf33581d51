package contact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks (standardwebhooks.com): the secret's prefix, the
// headers, and how far a receiver lets a timestamp stray from its clock.
const (
	secretPrefix    = "whsec_"
	headerID        = "webhook-id"
	headerTimestamp = "webhook-timestamp"
	headerSignature = "webhook-signature"
	tolerance       = 5 * time.Minute
)

var (
	errNoSignature  = errors.New("no valid signature matches")
	errStale        = errors.New("webhook-timestamp is more than 5 minutes from now")
	errMissingField = errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
)

// NewSecret returns a fresh signing secret: "whsec_" + base64 of 32
// random bytes.
func NewSecret() string {
	key := make([]byte, 32)
	rand.Read(key) // never fails: crypto/rand aborts the program instead
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}

// Sign is the Standard Webhooks signature: "v1," + base64(HMAC-SHA256(key,
// id + "." + unix seconds + "." + body)), key being the base64-decoded
// part after "whsec_".
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, at.Unix(), body)), nil
}

// Verify checks a request as a receiver would: the webhook-signature
// header holds space-separated "v1,<base64>" entries, any of which may
// match (a sender rotating its secret signs with both), and the
// webhook-timestamp must be within 5 minutes of now, so a captured
// request cannot be replayed later.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	id, ts, sigs := header.Get(headerID), header.Get(headerTimestamp), header.Get(headerSignature)
	if id == "" || ts == "" || sigs == "" {
		return errMissingField
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("webhook-timestamp %q is not unix seconds", ts)
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return errStale
	}
	want := mac(key, id, unix, body)
	for _, entry := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue // another scheme (v1a: asymmetric) is not ours to check
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errNoSignature
}

// secretKey decodes a "whsec_" secret into its HMAC key.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook secret is not whsec_ + base64: %w", err)
	}
	if len(key) == 0 {
		return nil, errors.New("webhook secret is empty")
	}
	return key, nil
}

func mac(key []byte, id string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "%s.%d.", id, unix)
	h.Write(body)
	return h.Sum(nil)
}
