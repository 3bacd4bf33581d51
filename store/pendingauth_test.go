package store

import (
	"testing"
	"time"
)

func TestPendingAuth(t *testing.T) {
	var p pendingAuth
	if p.isRevoked("a") || p.apply(User{ID: "u", TokenVersion: 2}).TokenVersion != 2 {
		t.Fatal("an empty hold changed something")
	}
	at := time.Unix(100, 0)
	for i, tc := range []struct {
		jti  string
		want bool
	}{{"a", true}, {"a", false}, {"b", true}} {
		if got := p.revoke(tc.jti, at); got != tc.want {
			t.Fatalf("revoke %d (%s): %v, want %v", i, tc.jti, got, tc.want)
		}
	}
	p.end("u", 3)
	p.end("u", 2) // an older bump never lowers it
	for _, tc := range []struct {
		stored, want int64
	}{{0, 3}, {3, 3}, {5, 5}} {
		if got := p.apply(User{ID: "u", TokenVersion: tc.stored}).TokenVersion; got != tc.want {
			t.Fatalf("stored version %d reads %d, want %d", tc.stored, got, tc.want)
		}
	}
	revoked, ended := p.snapshot()
	p.end("u", 4) // changed while it was written: kept
	p.written(revoked, ended)
	if p.isRevoked("a") || p.isRevoked("b") || p.apply(User{ID: "u"}).TokenVersion != 4 || p.n.Load() != 1 {
		t.Fatalf("after writing: revoked %v, ended %v, n %d", p.revoked, p.ended, p.n.Load())
	}
}
