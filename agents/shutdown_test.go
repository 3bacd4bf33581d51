package agents

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"garrison/account"
	"garrison/actor"
	"garrison/store"
	"garrison/store/storetest"
)

// TestStopBetweenClaimAndStart: a stop that comes after a worker claimed a
// run but before it started it puts the run back in the queue, as a stop
// during the run does, instead of leaving it running for the next start to
// count as a crash (two of which fail a run for good).
func TestStopBetweenClaimAndStart(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Path: filepath.Join(t.TempDir(), "g.db"), Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.Register(ctx, store.NewAccount{Email: "ann@acme.test", Name: "Ann", PasswordHash: "x", OrgName: "Acme",
		Plan: account.PlanStarter, Verify: store.UserToken{Hash: []byte("v"), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)},
		VerifyMail: store.Mail{To: "ann@acme.test", Subject: "s", Body: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.QueueRun(ctx, store.NewRun{OrgID: u.OrgID, Agent: "threat-researcher",
		Params: json.RawMessage(`{"target":"10.0.0.1"}`), RequestedBy: u.ID}); err != nil {
		t.Fatal(err)
	}
	run, err := st.ClaimRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancel(ctx)
	stop()
	r := NewRunner(Config{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	r.execute(stopped, run)

	got, err := st.Run(ctx, store.RunScope{Who: actor.Garrison(u.OrgID), Agent: run.Agent}, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.RunQueued || got.Recoveries != 0 {
		t.Fatalf("after a stop between claim and start: status %s, %d recoveries", got.Status, got.Recoveries)
	}
}
