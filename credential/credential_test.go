package credential

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestAPIKeyShape(t *testing.T) {
	shape := regexp.MustCompile(`^svc_live_[A-Za-z0-9]{32}$`)
	seen := map[string]bool{}
	for range 200 {
		key, hash, display := NewAPIKey()
		if !shape.MatchString(key) || !WellFormedAPIKey(key) || len(hash) != 32 || !strings.HasPrefix(key, display) || seen[key] {
			t.Fatalf("key %q display %q", key, display)
		}
		seen[key] = true
	}
	for _, bad := range []string{"", "svc_live_", "svc_live_" + strings.Repeat("a", 31), "svc_live_" + strings.Repeat("a", 33),
		"svc_live_" + strings.Repeat("a", 31) + "-", "svc_test_" + strings.Repeat("a", 32)} {
		if WellFormedAPIKey(bad) {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestPasswordRules(t *testing.T) {
	tests := map[string]bool{
		"elevenchars":                   false,
		"twelve chars":                  true,
		strings.Repeat("x", 256):        true,
		strings.Repeat("x", 257):        false,
		"Password1234":                  false, // common, any case
		"correct horse battery staple!": true,
	}
	for pw, ok := range tests {
		if got := PasswordProblem(pw) == ""; got != ok {
			t.Errorf("%q: acceptable=%v, want %v", pw, got, ok)
		}
	}
}

func TestHasher(t *testing.T) {
	ctx := context.Background()
	h := NewHasher(1000)
	enc, err := h.Hash(ctx, "correct horse battery")
	if err != nil || !strings.HasPrefix(enc, "pbkdf2-sha256$1000$") {
		t.Fatalf("%q %v", enc, err)
	}
	if ok, rehash, err := h.Verify(ctx, "correct horse battery", enc); !ok || rehash || err != nil {
		t.Fatalf("right password: %v %v %v", ok, rehash, err)
	}
	if ok, _, _ := h.Verify(ctx, "correct horse batterY", enc); ok {
		t.Fatal("wrong password accepted")
	}
	if other, _ := h.Hash(ctx, "correct horse battery"); other == enc {
		t.Fatal("no per-hash salt")
	}
	if _, rehash, _ := NewHasher(2000).Verify(ctx, "correct horse battery", enc); !rehash {
		t.Fatal("a raised work factor does not ask for a rehash")
	}
	for _, bad := range []string{"", "plain", "pbkdf2-sha256$x$a$b", "bcrypt$1$a$b", "pbkdf2-sha256$0$AA$AA"} {
		if _, _, err := h.Verify(ctx, "x", bad); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	h.slots <- struct{}{} // occupy every slot so the next hash must wait
	for len(h.slots) < cap(h.slots) {
		h.slots <- struct{}{}
	}
	if _, err := h.Hash(cancelled, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a queued hash ignores cancellation: %v", err)
	}
}
