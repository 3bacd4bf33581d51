package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"garrison/account"
	"garrison/store"
	"garrison/store/storetest"
)

// TestOldAddressesRenormalised: accounts stored before IDNA normalisation
// (a Unicode domain) are found by either spelling after an upgrade; an
// address whose new form another account holds is left as it was.
func TestOldAddressesRenormalised(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	st, err := store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	register := func(email string) store.User {
		u, err := st.Register(ctx, store.NewAccount{Email: email, Name: "N", PasswordHash: "x", OrgName: email,
			Plan: account.PlanStarter, Verify: store.UserToken{Hash: []byte(email), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)},
			VerifyMail: store.Mail{To: email, Subject: "s", Body: "b"}})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	old := register("ann@xn--dp-xka.example")
	kept := register("bob@xn--dp-xka.example")
	taken := register("bob@other.example")
	st.Close()

	// What the previous release stored: the domain as typed.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for id, email := range map[string]string{old.ID: "ann@düp.example", taken.ID: "bob@düp.example"} {
		if _, err := db.Exec(`UPDATE users SET email = ? WHERE id = ?`, email, id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err = store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, spelling := range []string{"ann@düp.example", "ANN@xn--dp-xka.example", "ann@du\u0308p.example"} {
		if u, err := st.UserByEmail(ctx, spelling); err != nil || u.ID != old.ID {
			t.Errorf("%s: %+v %v", spelling, u.ID, err)
		}
	}
	if u, err := st.UserByEmail(ctx, "bob@düp.example"); err != nil || u.ID != kept.ID {
		t.Errorf("the account holding the normal form: %v %v", u.ID, err)
	}
	if u, err := st.UserByID(ctx, taken.ID); err != nil || u.Email != "bob@düp.example" {
		t.Errorf("the colliding account: %q %v", u.Email, err)
	}
}
