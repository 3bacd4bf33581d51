package mail

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"garrison/store"
	"garrison/wording"
)

// link builds a URL on the configured base, never on the request's Host.
func (m *Mailer) link(path, token string) string {
	return m.baseURL + path + "?" + url.Values{"token": {token}}.Encode()
}

// apiCall is the request that does what a mail's link does, for someone
// who would rather not open a browser (or whose appliance has no console
// reachable from where they read mail), as a curl command to paste.
func (m *Mailer) apiCall(path string, body map[string]string) string {
	raw, _ := json.Marshal(body) // a map of strings always encodes
	cacert := ""
	if m.caCert != "" {
		cacert = "--cacert " + shellQuote(m.caCert) + " "
	}
	return "  curl " + cacert + "-X POST " + m.baseURL + "/api" + path + " \\\n" +
		"    -H 'Content-Type: application/json' -d " + shellQuote(string(raw)) + "\n"
}

// shellQuote makes s one single-quoted shell word (an address may hold ').
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Verify is the mail that confirms a new account's address.
func (m *Mailer) Verify(to, token string) store.Mail {
	return store.Mail{To: to, Subject: "Confirm your Garrison e-mail address",
		Body: "Welcome to Garrison.\n\nConfirm this address by opening the link below (valid for one hour):\n\n" +
			m.link("/verify-email", token) + "\n\nor with the API:\n\n" +
			m.apiCall("/auth/verify-email", map[string]string{"token": token})}
}

// Claim is the mail confirming a registration for an address that an
// unconfirmed account, made through another organization's invitation,
// holds: confirming makes the account and ends the other.
func (m *Mailer) Claim(to, token string) store.Mail {
	return store.Mail{To: to, Subject: "Confirm your Garrison e-mail address",
		Body: "Someone asked for a Garrison account with this address. An account that another organization's invitation made " +
			"holds the address, but nobody has confirmed it from this mailbox.\n\n" +
			"If this was you, confirm by opening the link below (valid for one hour): your account is made, and the other " +
			"account is removed and signed out.\n\n" + m.link("/verify-email", token) + "\n\nor with the API:\n\n" +
			m.apiCall("/auth/verify-email", map[string]string{"token": token}) +
			"\nIf it was not you, ignore this mail: nothing changes.\n"}
}

// Reset is the mail that carries a password-reset link.
func (m *Mailer) Reset(to, token string) store.Mail {
	return store.Mail{To: to, Subject: "Reset your Garrison password",
		Body: "Someone asked to reset the password of this Garrison account.\n\nOpen the link below within one hour to choose a new password:\n\n" +
			m.link("/reset-password", token) + "\n\nor set it with the API (at least 12 characters):\n\n" +
			m.apiCall("/auth/reset-confirm", map[string]string{"token": token, "new_password": "YOUR NEW PASSWORD"}) +
			"\nIf it was not you, ignore this message; the password stays as it is.\n"}
}

// SetPassword is the mail of an admin account the appliance's operator
// made (garrison org create): it says for how long, and until when, its
// link lets the admin choose a password.
func (m *Mailer) SetPassword(to, orgName, token string, valid time.Duration, until time.Time) store.Mail {
	return store.Mail{To: to, Subject: "Choose your password for " + orgName + " on Garrison",
		Body: "The operator of this Garrison appliance made an administrator account of " + orgName + " for this address.\n\n" +
			"Choose your password by opening the link below within " + wording.Count(int(valid/time.Hour), "hour", "hours") +
			" (before " + until.UTC().Format(time.RFC3339) + "):\n\n" +
			m.link("/reset-password", token) + "\n\nor set it with the API (at least 12 characters):\n\n" +
			m.apiCall("/auth/reset-confirm", map[string]string{"token": token, "new_password": "YOUR NEW PASSWORD"}) +
			"\nAfter that time, ask the operator for a new link, or use \"Forgot your password?\" on the sign-in page.\n"}
}

// StorageWarning tells an admin their organization's stored events are
// near its storage quota, and what happens when it is full.
func (m *Mailer) StorageWarning(to string, used, quota int64) store.Mail {
	pct := used * 100 / max(quota, 1)
	return store.Mail{To: to, Subject: fmt.Sprintf("Garrison: your organization's storage is %d%% full", pct),
		Body: fmt.Sprintf("Your organization's events take %s of its %s storage quota on this Garrison appliance (%d%%).\n\n"+
			"When it is full, new events are refused (507 storage_quota_exceeded) until older ones are pruned by the "+
			"retention or the quota is raised. Ask the appliance's operator for a larger quota, or keep events for a "+
			"shorter time.\n", sizeText(used), sizeText(quota), pct)}
}

// sizeText writes a byte count for people: "812 MiB", "4.2 GiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Invite is the mail that invites someone into an organization.
func (m *Mailer) Invite(to, orgName, role, token string) store.Mail {
	return store.Mail{To: to, Subject: "You are invited to " + orgName + " on Garrison",
		Body: "You have been invited to join " + orgName + " on Garrison as " + role + ".\n\nAccept by registering through the link below (valid for seven days):\n\n" +
			m.link("/register", token) + "\n\nor with the API, from this address:\n\n" +
			m.apiCall("/auth/register", map[string]string{"invite_token": token, "email": to, "name": "YOUR NAME", "password": "YOUR PASSWORD"})}
}

// DigestItem is one watched CVE an intelligence import changed.
type DigestItem struct {
	CVEID   string
	EntryID string
	Changes []string // "CVSS score: 7.5 (CVSS 3.1) → 9.8 (CVSS 3.1)"
}

// IntelDigest is the one mail an organization's admin gets per import that
// changed CVEs it watches.
func (m *Mailer) IntelDigest(to, orgName, importID string, items []DigestItem) store.Mail {
	var b strings.Builder
	fmt.Fprintf(&b, "New intelligence changed %d CVE(s) on the watchlist of %s (import %s):\n", len(items), orgName, importID)
	for _, it := range items {
		fmt.Fprintf(&b, "\n%s\n", it.CVEID)
		for _, c := range it.Changes {
			fmt.Fprintf(&b, "  - %s\n", c)
		}
		fmt.Fprintf(&b, "  %s/cve-watchlist/%s\n", m.baseURL, it.EntryID)
	}
	b.WriteString("\nEach link opens the entry on the CVE watchlist page, with its full enrichment and history.\n")
	subject := fmt.Sprintf("Garrison: %d watched CVE(s) changed", len(items))
	if len(items) == 1 {
		subject = "Garrison: " + items[0].CVEID + " changed"
	}
	return store.Mail{To: to, Subject: subject, Body: b.String()}
}

// KeyExpiry is the mail to an admin about an API key that expires in days.
func (m *Mailer) KeyExpiry(to, keyName string, expiresAt time.Time, days int) store.Mail {
	return store.Mail{To: to, Subject: fmt.Sprintf("Garrison API key %q expires in %s", keyName, wording.Count(days, "day", "days")),
		Body: fmt.Sprintf("The API key %q expires at %s. Whatever uses it (a sensor, a SIEM export) will be refused from then on, "+
			"and a sensor's events will stop.\n\nCreate a new key in Settings (or POST /api/api-keys), put it where the old one is used, "+
			"then revoke the old one:\n\n  %s/settings\n", keyName, expiresAt.UTC().Format("2006-01-02 15:04 UTC"), m.baseURL)}
}
