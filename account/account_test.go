package account

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"garrison/actor"
	"garrison/credential"
	"garrison/mail"
	"garrison/store"
	"garrison/store/storetest"
	"garrison/valid"
)

const testPassword = "correct horse battery staple"

// countingHasher counts PBKDF2 derivations, the cost that must not differ
// between known and unknown addresses.
type countingHasher struct {
	*credential.Hasher
	derivations atomic.Int64
}

func (c *countingHasher) Hash(ctx context.Context, pw string) (string, error) {
	c.derivations.Add(1)
	return c.Hasher.Hash(ctx, pw)
}

func (c *countingHasher) Verify(ctx context.Context, pw, enc string) (bool, bool, error) {
	c.derivations.Add(1)
	return c.Hasher.Verify(ctx, pw, enc)
}

func (c *countingHasher) VerifyNobody(ctx context.Context, pw string) error {
	c.derivations.Add(1)
	return c.Hasher.VerifyNobody(ctx, pw)
}

func newAccounts(t *testing.T, st *store.Store, h Passwords) *Accounts {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	m := mail.New(mail.Config{Store: st, Log: log, Now: time.Now, BaseURL: "https://garrison.test"})
	return New(Config{Store: st, Passwords: h, Mailer: m, Now: time.Now, Log: log})
}

func TestLoginCostsTheSameForUnknownAddresses(t *testing.T) {
	st := storetest.Open(t)
	h := &countingHasher{Hasher: credential.NewHasher(1000)}
	a := newAccounts(t, st, h)
	if _, err := a.Register(t.Context(), Registration{Email: "ann@acme.test", Password: testPassword, Name: "Ann"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		email, password string
		err             error
	}{
		{"ann@acme.test", "wrong password!!", ErrBadLogin},
		{"nobody@acme.test", "wrong password!!", ErrBadLogin},
		{"ann@acme.test", testPassword, nil},
	} {
		before := h.derivations.Load()
		_, err := a.Login(t.Context(), tc.email, tc.password)
		if !errors.Is(err, tc.err) {
			t.Errorf("login %s: %v, want %v", tc.email, err, tc.err)
		}
		if n := h.derivations.Load() - before; n != 1 {
			t.Errorf("login %s/%s derived %d keys, want 1", tc.email, tc.password, n)
		}
	}
}

func TestLoginUpgradesOldHashes(t *testing.T) {
	st := storetest.Open(t)
	reg, err := newAccounts(t, st, credential.NewHasher(1000)).Register(t.Context(),
		Registration{Email: "ann@acme.test", Password: testPassword, Name: "Ann"})
	u := reg.User
	if err != nil || !strings.Contains(u.PasswordHash, "$1000$") {
		t.Fatalf("hash %q, %v", u.PasswordHash, err)
	}
	// A server started with a higher work factor rehashes at the next login.
	stronger := newAccounts(t, st, credential.NewHasher(2000))
	if _, err := stronger.Login(t.Context(), "ann@acme.test", testPassword); err != nil {
		t.Fatal(err)
	}
	u, _ = st.UserByID(t.Context(), u.ID)
	if !strings.Contains(u.PasswordHash, "$2000$") {
		t.Fatalf("hash not upgraded: %q", u.PasswordHash)
	}
	if _, err := stronger.Login(t.Context(), "ann@acme.test", testPassword); err != nil {
		t.Fatal(err)
	}
}

func TestResetConfirmRefusesBadTokenCheaply(t *testing.T) {
	st := storetest.Open(t)
	h := &countingHasher{Hasher: credential.NewHasher(1000)}
	_, err := newAccounts(t, st, h).ConfirmReset(t.Context(), "guess", "a brand new passphrase")
	var ve *valid.Error
	if !errors.As(err, &ve) || ve.Fields()[0] != "token" {
		t.Fatalf("refusal %v", err)
	}
	if n := h.derivations.Load(); n != 0 {
		t.Fatalf("a bad token cost %d derivations", n)
	}
}

// TestKeyUseWrittenInTheBackground: a use is listed at once and written
// down by Flush, never going back in time.
func TestKeyUseWrittenInTheBackground(t *testing.T) {
	st := storetest.Open(t)
	reg, err := newAccounts(t, st, credential.NewHasher(1000)).Register(t.Context(),
		Registration{Email: "ann@acme.test", Password: testPassword, Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	u := reg.User
	k, _, err := CreateKey(t.Context(), st, NewKey{OrgID: u.OrgID, CreatedBy: u.ID, Name: "k", Scope: actor.ScopeRead}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	uses := NewKeyUse(KeyUseConfig{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	at := time.Now().UTC().Truncate(time.Millisecond)
	uses.Seen(k.ID, at)
	uses.Seen(k.ID, at.Add(-time.Hour)) // an older use changes nothing
	listed := func() *time.Time {
		keys, _, err := uses.Keys(t.Context(), u.OrgID, store.Page{Limit: 10})
		if err != nil || len(keys) != 1 {
			t.Fatal(keys, err)
		}
		return keys[0].LastUsedAt
	}
	if got := listed(); got == nil || !got.Equal(at) {
		t.Fatalf("listed before the flush: %v", got)
	}
	if stored, _ := st.APIKeyByHash(t.Context(), k.Hash); stored.LastUsedAt != nil {
		t.Fatal("written before the flush")
	}
	if err := uses.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if stored, _ := st.APIKeyByHash(t.Context(), k.Hash); stored.LastUsedAt == nil || !stored.LastUsedAt.Equal(at) {
		t.Fatalf("after the flush: %v", stored.LastUsedAt)
	}
	if got := listed(); got == nil || !got.Equal(at) {
		t.Fatalf("listed after the flush: %v", got)
	}
}
