// Package demo creates the demo organization: an admin, thirty days of
// events, alerts and DNS telemetry as a sensor would have sent them, a few
// tickets and first agent runs, so a new appliance has something to show.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"garrison/account"
	"garrison/agents"
	"garrison/alerting"
	"garrison/blocklist"
	"garrison/compliance"
	"garrison/credential"
	"garrison/store"
	"garrison/ticket"

	"garrison/event"
)

// Addresses are LIKE patterns of the demo's admin addresses (published and
// while it is built): never the appliance operator's organization.
var Addresses = []string{Email, "demo+seeding-%@garrison.example"}

// The demo organization and its admin.
const (
	Email    = "demo@garrison.example"
	demoOrg  = "Demo MSP"
	demoDays = 30
)

// demoSignature is a detection the demo sensors raise: on which assets
// (a few each, as real detections are), from which outside addresses
// (inbound ones) or from the asset itself (outbound ones).
type demoSignature struct {
	typ               string
	severity          event.Severity
	message, category string
	weight            int
	assets            []string
	attackers         []string // outside sources of inbound detections; none: the asset is the source
	// days bounds when it fires, in days ago (first, last); zero: the
	// whole month. An incident has its days, then is cleaned up.
	days [2]int
}

var demoSignatures = []demoSignature{
	{event.TypeThreat, event.Low, "ET SCAN Potential SSH Scan", "Attempted Information Leak", 30,
		[]string{"edge-rtr.demo.local", "web-01.demo.local", "mail-01.demo.local"}, []string{"203.0.113.7", "203.0.113.45", "198.51.100.23"}, [2]int{}},
	{event.TypeThreat, event.Low, "ET SCAN Behavioral Unusual Port 445 traffic Potential Scan or Infection", "Misc activity", 20,
		[]string{"file-01.demo.local", "dc-01.demo.local", ws(3), ws(4), ws(8), ws(11)}, []string{"10.20.0.18"}, [2]int{}},
	{event.TypeThreat, event.Medium, "ET POLICY Outbound SMB to external network", "Potential Corporate Privacy Violation", 10,
		[]string{ws(3), ws(11)}, nil, [2]int{}},
	{event.TypeThreat, event.Medium, "ET WEB_SERVER Possible SQL Injection Attempt UNION SELECT", "Web Application Attack", 6,
		[]string{"web-01.demo.local"}, []string{"198.51.100.77", "203.0.113.201"}, [2]int{}},
	{event.TypeThreat, event.High, "ET EXPLOIT Possible Apache Log4j RCE Attempt (CVE-2021-44228)", "Attempted Administrator Privilege Gain", 2,
		[]string{"web-01.demo.local", "mail-01.demo.local"}, []string{"203.0.113.245"}, [2]int{}},
	// Emotet on ws-07 three weeks ago, cleaned up; on ws-12 since yesterday.
	{event.TypeThreat, event.Critical, "ET MALWARE Win32/Emotet CnC Activity", "A Network Trojan was detected", 8,
		[]string{ws(7)}, nil, [2]int{24, 18}},
	{event.TypeThreat, event.Critical, "ET MALWARE Win32/Emotet CnC Activity", "A Network Trojan was detected", 8,
		[]string{ws(12)}, nil, [2]int{1, 0}},
	{event.TypeBlocked, event.Low, "Dropped TCP connection to known botnet controller", "", 15,
		[]string{ws(7), ws(12), "ws-frontdesk.demo.local"}, nil, [2]int{}},
	{event.TypeBlocked, event.Medium, "Blocked outbound RDP to the internet", "", 5, []string{ws(15)}, nil, [2]int{}},
	{event.TypeDNS, event.Medium, "DNS query with unusually long subdomain (possible tunnelling)", "", 3, []string{ws(7)}, nil, [2]int{24, 18}},
	{event.TypePolicy, event.Info, "USB mass storage device connected", "", 6,
		[]string{ws(2), ws(5), ws(9), ws(14), "ws-frontdesk.demo.local"}, nil, [2]int{}},
	{event.TypePolicy, event.Medium, "Local administrator account login outside business hours", "", 2,
		[]string{"dc-01.demo.local", "file-01.demo.local"}, nil, [2]int{}},
}

// demoIP is the inventory address of a demo host.
func demoIP(host string) string {
	for _, a := range demoAssets {
		if a.Hostname == host {
			return a.IP
		}
	}
	return ""
}

var demoBenignDomains = []string{"www.microsoft.com", "login.microsoftonline.com", "outlook.office365.com", "update.googleapis.com",
	"www.google.com", "slack.com", "zoom.us", "github.com", "api.stripe.com", "cdn.jsdelivr.net", "time.windows.com"}

// Create makes the demo organization with 30 days of activity, once, and
// writes its credentials to out.
func Create(ctx context.Context, st *store.Store, now time.Time, out io.Writer) error {
	if _, err := st.UserByEmail(ctx, Email); err == nil {
		fmt.Fprintf(out, "The demo organization exists already: log in as %s (its password was printed when it was made).\n", Email)
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	password := "demo-" + credential.RandomText(16)
	hash, err := credential.NewHasher(credential.DefaultIterations).Hash(ctx, password)
	if err != nil {
		return err
	}
	// The account is built under a private address and takes the demo
	// address only once everything is seeded: a run cut short leaves no
	// half-made demo behind the real address, and the next run starts over.
	staging := "demo+seeding-" + strings.ToLower(credential.RandomText(12)) + "@garrison.example"
	token, tokenHash := credential.NewToken()
	u, err := st.Register(ctx, store.NewAccount{Email: staging, Name: "Demo Admin", PasswordHash: hash, OrgName: demoOrg,
		Plan: account.PlanPro, Verify: store.UserToken{Hash: tokenHash, Purpose: store.PurposeVerify, ExpiresAt: now.Add(time.Hour)},
		VerifyMail: store.Mail{To: staging, Subject: "Demo account", Body: "The demo account needs no verification."}})
	if err != nil {
		return fmt.Errorf("create demo account: %w", err)
	}
	if _, err := st.VerifyEmail(ctx, credential.Hash(token)); err != nil {
		return err
	}
	blocked, err := blocklist.Default()
	if err != nil {
		return err
	}
	if err := seedDemo(ctx, st, u.OrgID, blocked, now); err != nil {
		return err
	}
	if err := st.ChangeEmail(ctx, u.ID, Email); err != nil {
		return fmt.Errorf("publish the demo account: %w", err)
	}
	// Queued only once published: an abandoned staging copy runs nothing.
	if err := seedDemoWork(ctx, st, u); err != nil {
		return err
	}
	fmt.Fprintf(out, "Demo organization %q is ready with %d days of activity.\n  e-mail:   %s\n  password: %s\n", demoOrg, demoDays, Email, password)
	return nil
}

// seedDemo ingests a day at a time, oldest first, the way sensors would
// have sent it, then resolves the older alerts as an analyst would have.
func seedDemo(ctx context.Context, st *store.Store, orgID string, blocked *blocklist.List, now time.Time) error {
	r := rand.New(rand.NewPCG(uint64(now.UnixNano()), 1))
	var weighted []demoSignature
	for _, s := range demoSignatures {
		for range s.weight {
			weighted = append(weighted, s)
		}
	}
	trackers := []string{"bat.bing.com", "pixel.facebook.com", "www.google-analytics.com", "stats.g.doubleclick.net", "malware.wicar.org"}
	for d := demoDays - 1; d >= 0; d-- {
		dayStart := now.Add(-time.Duration(d) * 24 * time.Hour).Truncate(24 * time.Hour)
		var events []store.NewEvent
		var dns []store.DNSQuery
		for range 150 + r.IntN(250) {
			s := weighted[r.IntN(len(weighted))]
			if s.days != [2]int{} && (d > s.days[0] || d < s.days[1]) {
				continue // not one of its days
			}
			at := dayStart.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
			if at.After(now) {
				continue
			}
			asset := s.assets[r.IntN(len(s.assets))]
			src, dest := demoIP(asset), "203.0.113.66" // outbound: the asset calls out
			if len(s.attackers) > 0 {
				src, dest = s.attackers[r.IntN(len(s.attackers))], demoIP(asset)
			}
			events = append(events, store.NewEvent{Type: s.typ, Severity: s.severity, Timestamp: at, Source: "suricata",
				Asset: asset, Message: s.message, Indicator: s.message, Category: s.category,
				Details: []byte(fmt.Sprintf(`{"src_ip":%q,"dest_ip":%q,"demo":true}`, src, dest))})
		}
		for range 600 + r.IntN(400) {
			at := dayStart.Add(time.Duration(r.Int64N(int64(24 * time.Hour))))
			if at.After(now) {
				continue
			}
			domain := demoBenignDomains[r.IntN(len(demoBenignDomains))]
			if r.IntN(12) == 0 {
				domain = trackers[r.IntN(len(trackers))]
			}
			category, _ := blocked.Match(domain)
			dns = append(dns, store.DNSQuery{Timestamp: at, Source: "suricata", Client: demoClients[r.IntN(len(demoClients))],
				Domain: domain, QType: "A", RCode: "NOERROR", Category: category})
		}
		if _, err := st.Ingest(ctx, orgID, events, dns); err != nil {
			return fmt.Errorf("seed day %d: %w", d, err)
		}
	}
	// Newest first: page past the recent alerts to the older ones.
	for offset := 0; ; {
		alerts, _, err := st.Alerts(ctx, orgID, alerting.Filter{Status: alerting.Open, Limit: 200, Offset: offset})
		if err != nil {
			return err
		}
		if len(alerts) == 0 {
			// Raised when their first event came, resolved hours after the last.
			return st.BackdateAlerts(ctx, orgID, 4*time.Hour)
		}
		var old []string
		for _, a := range alerts {
			if now.Sub(a.LastSeen) <= 3*24*time.Hour {
				offset++
				continue
			}
			old = append(old, a.ID)
		}
		if len(old) == 0 {
			continue
		}
		resolved := alerting.Resolved
		if _, err := st.UpdateAlerts(ctx, orgID, old, alerting.Write{Status: &resolved, Disposition: alerting.TruePositive,
			Note: "Investigated during the demo period: contained.", Actor: "demo"}); err != nil {
			return err
		}
	}
}

// demoTickets are support requests the demo's tech-support agent triages on
// the first start: two clear ones and one it escalates.
var demoTickets = []ticket.New{
	{Subject: "Locked out after password change", Priority: "high",
		Description: "Since I changed my password this morning my account is locked out and I cannot log in to Windows or Outlook."},
	{Subject: "Suspicious invoice e-mail", Priority: "medium",
		Description: "I received an e-mail with an invoice attachment from a supplier we do not use. I did not open it. Is it phishing?"},
	{Subject: "Problem with the system", Priority: "low", Description: "Something is not right since yesterday."},
}

// seedDemoWork queues the demo's tickets and a first run of two agents; the
// server's workers carry them out once it runs.
func seedDemoWork(ctx context.Context, st *store.Store, admin store.User) error {
	for _, t := range demoTickets {
		t.OrgID, t.CreatedBy = admin.OrgID, admin.ID
		if _, err := st.SubmitTicket(ctx, t, agents.TechSupportSlug); err != nil {
			return fmt.Errorf("demo ticket: %w", err)
		}
	}
	if err := seedDemoIntel(ctx, st, admin); err != nil {
		return err
	}
	if err := seedDemoOutreach(ctx, st, admin); err != nil {
		return err
	}
	if err := seedDemoCompliance(ctx, st, admin); err != nil {
		return err
	}
	for _, r := range []store.NewRun{
		{Agent: "threat-researcher", Params: []byte(`{"target":"web-01.demo.local"}`)},
		{Agent: "onboarding", Params: []byte(`{}`)},
		// An audit of all four frameworks: the compliance pages have a
		// completed report as soon as the server's workers start.
		{Agent: "compliance", Params: []byte(`{}`), Audit: &store.NewAudit{Frameworks: compliance.FrameworkIDs()}},
	} {
		r.OrgID, r.RequestedBy = admin.OrgID, admin.ID
		if _, err := st.QueueRun(ctx, r); err != nil {
			return fmt.Errorf("demo agent run: %w", err)
		}
	}
	return nil
}

// demoPolicies are the templates the demo client has adopted; the others
// are gaps its audit shows.
var demoPolicies = []string{"acceptable-use", "incident-response", "password", "backup-recovery"}

// demoAttestations are controls no check evidences that the demo's
// administrator has attested, one of them failing.
var demoAttestations = []store.Attestation{
	{Framework: "soc2", ControlID: "CC6.4", Status: "pass", Note: "Server closet locked; badge access reviewed each quarter.",
		EvidenceURL: "https://wiki.demo.local/facilities/badge-review"},
	{Framework: "soc2", ControlID: "CC8.1", Status: "fail", Note: "Firewall changes are not ticketed yet."},
	{Framework: "cis", ControlID: "16.1", Status: "not_applicable", Note: "The client develops no software."},
	{Framework: "hipaa", ControlID: "164.310(a)(2)(ii)", Status: "pass", Note: "Facility security plan approved in March."},
}

func seedDemoCompliance(ctx context.Context, st *store.Store, admin store.User) error {
	for _, id := range demoPolicies {
		if _, _, err := st.AdoptPolicy(ctx, admin.OrgID, id, admin.ID); err != nil {
			return fmt.Errorf("demo policy %s: %w", id, err)
		}
	}
	for _, a := range demoAttestations {
		a.AttestedBy = admin.ID
		if _, err := st.Attest(ctx, admin.OrgID, a); err != nil {
			return fmt.Errorf("demo attestation %s %s: %w", a.Framework, a.ControlID, err)
		}
	}
	return nil
}
