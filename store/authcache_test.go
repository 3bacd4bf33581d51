package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"garrison/account"
	"garrison/store"
	"garrison/store/storetest"
)

// TestAuthChangesOfAnotherProcessSeen: two stores on one database stand
// for the server and the admin CLI. Each change the "CLI" makes right
// after one of the server's own (well within a file-system clock tick)
// holds on the server's very next lookup: the epoch file's content is
// compared, not its time.
func TestAuthChangesOfAnotherProcessSeen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	server, err := store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cli, err := store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	u := registerAnn(t, server)
	for i := range 50 {
		if _, _, err := server.SessionUser(ctx, u.ID, u.OrgID, "jti"); err != nil { // cached now
			t.Fatal(err)
		}
		// The server's own change, then at once the CLI's.
		if err := server.SetPassword(ctx, u.ID, "y", false); err != nil {
			t.Fatal(err)
		}
		if _, _, err := server.SessionUser(ctx, u.ID, u.OrgID, "jti"); err != nil { // cached again
			t.Fatal(err)
		}
		if err := cli.SetPassword(ctx, u.ID, "z", true); err != nil {
			t.Fatal(err)
		}
		got, _, err := server.SessionUser(ctx, u.ID, u.OrgID, "jti")
		if err != nil {
			t.Fatal(err)
		}
		if got.TokenVersion != int64(i+1) {
			t.Fatalf("round %d: the server read token_version %d after the CLI made it %d", i, got.TokenVersion, i+1)
		}
	}
}

// TestAuthEpochFileOfAnOldVersion: the file an earlier release wrote (a
// time as text) or an empty one opens, and a change still shows.
func TestAuthEpochFileOfAnOldVersion(t *testing.T) {
	for name, content := range map[string]string{"old text": "2026-11-20T10:00:00.123456789Z\n", "empty": ""} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "g.db")
			if err := os.WriteFile(path+"-auth", []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			server, err := store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer server.Close()
			u := registerAnn(t, server)
			server.SessionUser(ctx, u.ID, u.OrgID, "jti")
			cli, err := store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			if err := cli.SetPassword(ctx, u.ID, "z", true); err != nil {
				t.Fatal(err)
			}
			if got, _, _ := server.SessionUser(ctx, u.ID, u.OrgID, "jti"); got.TokenVersion != 1 {
				t.Fatalf("token_version %d after the CLI's change; want 1", got.TokenVersion)
			}
		})
	}
}

// registerAnn registers ann@acme.test with her organization.
func registerAnn(t *testing.T, st *store.Store) store.User {
	t.Helper()
	u, err := st.Register(context.Background(), store.NewAccount{Email: "ann@acme.test", Name: "Ann", PasswordHash: "x", OrgName: "Acme",
		Plan: account.PlanStarter, Verify: store.UserToken{Hash: []byte("v"), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)},
		VerifyMail: store.Mail{To: "ann@acme.test", Subject: "s", Body: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	return u
}
