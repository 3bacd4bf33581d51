package contact

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks specification's example (spec/standard-webhooks.md).
const (
	specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specUnix   = 1614265330
	specBody   = `{"test": 2432232314}`
	specSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignSpecVector(t *testing.T) {
	got, err := Sign(specSecret, specID, time.Unix(specUnix, 0), []byte(specBody))
	if err != nil || got != specSig {
		t.Fatalf("Sign = %q, %v; want %q", got, err, specSig)
	}
}

func specHeader(id, ts, sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", sig)
	return h
}

func TestVerify(t *testing.T) {
	at := time.Unix(specUnix, 0)
	ts := strconv.Itoa(specUnix)
	other := NewSecret()
	otherSig, _ := Sign(other, specID, at, []byte(specBody))
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   string
		now    time.Time
		ok     bool
	}{
		{"spec vector", specSecret, specHeader(specID, ts, specSig), specBody, at, true},
		{"secret without prefix", strings.TrimPrefix(specSecret, "whsec_"), specHeader(specID, ts, specSig), specBody, at, true},
		{"clock 4 minutes ahead", specSecret, specHeader(specID, ts, specSig), specBody, at.Add(4 * time.Minute), true},
		{"one of several signatures", specSecret, specHeader(specID, ts, otherSig+" v1a,bm90IG91cnM= "+specSig), specBody, at, true},
		{"tampered body", specSecret, specHeader(specID, ts, specSig), `{"test": 2432232315}`, at, false},
		{"wrong secret", other, specHeader(specID, ts, specSig), specBody, at, false},
		{"other message id", specSecret, specHeader("msg_other", ts, specSig), specBody, at, false},
		{"stale timestamp", specSecret, specHeader(specID, ts, specSig), specBody, at.Add(5*time.Minute + time.Second), false},
		{"timestamp from the future", specSecret, specHeader(specID, ts, specSig), specBody, at.Add(-6 * time.Minute), false},
		{"timestamp changed", specSecret, specHeader(specID, strconv.Itoa(specUnix+1), specSig), specBody, at, false},
		{"timestamp not a number", specSecret, specHeader(specID, "soon", specSig), specBody, at, false},
		{"no signature", specSecret, specHeader(specID, ts, ""), specBody, at, false},
		{"unknown version", specSecret, specHeader(specID, ts, "v2,"+strings.TrimPrefix(specSig, "v1,")), specBody, at, false},
		{"signature not base64", specSecret, specHeader(specID, ts, "v1,!!!"), specBody, at, false},
		{"secret not base64", "whsec_!!!", specHeader(specID, ts, specSig), specBody, at, false},
		{"empty secret", "whsec_", specHeader(specID, ts, specSig), specBody, at, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.secret, tc.header, []byte(tc.body), tc.now)
			if (err == nil) != tc.ok {
				t.Fatalf("Verify = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "whsec_"))
	if !strings.HasPrefix(a, "whsec_") || err != nil || len(key) != 32 {
		t.Fatalf("secret %q: %d bytes, %v", a, len(key), err)
	}
	now := time.Now()
	sig, err := Sign(a, "msg_1", now, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(a, specHeader("msg_1", strconv.FormatInt(now.Unix(), 10), sig), []byte("{}"), now); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
}
