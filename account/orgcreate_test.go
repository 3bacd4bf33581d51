package account

import (
	"context"
	"strings"
	"testing"
	"time"

	"garrison/credential"
	"garrison/store/storetest"
)

// TestOrgCreateMailSaysWhatTheCLISays: the admin of an organization the
// operator made gets a mail whose link lasts as long as the CLI says (24
// hours, with the same deadline), on the configured base URL.
func TestOrgCreateMailSaysWhatTheCLISays(t *testing.T) {
	st := storetest.Open(t)
	a := newAccounts(t, st, credential.NewHasher(1000))
	res, err := a.CreateOrg(context.Background(), NewOrg{Name: "Acme", AdminEmail: "ann@acme.test", AdminName: "Ann", Plan: PlanStarter})
	if err != nil {
		t.Fatal(err)
	}
	mails, err := st.Outbox(context.Background(), "ann@acme.test", 10)
	if err != nil || len(mails) != 1 {
		t.Fatalf("outbox: %v %v, want the one set-password mail", mails, err)
	}
	body := mails[0].Body
	for _, want := range []string{"within 24 hours", "(before " + res.SetPasswordUntil.UTC().Format(time.RFC3339) + ")",
		"https://garrison.test/reset-password?token=" + res.SetPasswordToken, "administrator account of Acme"} {
		if !strings.Contains(body, want) {
			t.Errorf("mail lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "one hour") || strings.Contains(body, "Someone asked") {
		t.Errorf("the mail reads like a reset request:\n%s", body)
	}
	if got := res.SetPasswordUntil.Sub(time.Now()); got < 23*time.Hour || got > 25*time.Hour {
		t.Errorf("the link lasts %v", got)
	}
}
