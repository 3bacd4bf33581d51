// Package alerting decides which security events need a human: every high
// or critical event, and bursts of lower ones from one asset. It is pure
// rules; the store applies them inside the ingest transaction.
package alerting

import (
	"crypto/sha256"
	"encoding/hex"
	"net/netip"
	"strings"
	"time"

	"garrison/event"
	"garrison/valid"
)

// The burst rule: this many lower-severity events of one type from one asset
// inside one fixed window raise an alert.
const (
	BurstThreshold = 10
	BurstWindow    = 10 * time.Minute
)

// Event is what the rules look at.
type Event struct {
	Type      string
	Severity  event.Severity
	Asset     string
	Message   string
	Indicator string
	Category  string // the sensor's own category (EVE alert.category), if any
	// The normalised fields the correlation rules read: who and whence
	// (Attacker), and a sign-in's outcome ("success", "failure").
	SrcIP, DstIP netip.Addr
	User         string
	Action       string
	Time         time.Time
}

// Spec describes the alert an event raises or joins.
type Spec struct {
	Fingerprint       string
	Severity          event.Severity
	Category          string
	Title             string
	Asset             string
	Indicator         string
	RecommendedAction string
	Rule              *Rule // the detection rule that opened it, nil for Garrison's own rules
}

// Immediate returns the alert a high or critical event raises; ok is false
// for lower severities, which only count towards bursts. Repeats of one
// threat on one asset share a fingerprint, so they join one open alert.
func Immediate(e Event) (Spec, bool) {
	if e.Severity < event.High || !Alerts(e.Type) {
		return Spec{}, false
	}
	category := categorize(e)
	subject := e.Indicator
	if subject == "" {
		subject = e.Message
	}
	return Spec{
		Fingerprint:       fingerprint("event", e.Type, e.Asset, subject),
		Severity:          e.Severity,
		Category:          category,
		Title:             oneLine(e.Message, 200),
		Asset:             e.Asset,
		Indicator:         e.Indicator,
		RecommendedAction: recommend(category, e.Asset, e.Indicator),
	}, true
}

// Alerts reports whether events of the type may raise alerts, at once or
// in bursts: activity (sign-ins, connections) is searched, not alerted on.
func Alerts(eventType string) bool { return eventType != event.TypeActivity }

// Burst returns the alert for a burst of lower-severity events of one type
// from one asset.
func Burst(eventType, asset string, severity event.Severity) Spec {
	return Spec{
		Fingerprint: fingerprint("burst", eventType, asset, ""),
		Severity:    max(severity, event.Medium), // a burst is at least medium
		Category:    event.CategoryBurst,
		Title:       "Burst of " + strings.ReplaceAll(eventType, "_", " ") + " events from " + asset,
		Asset:       asset,
		RecommendedAction: "Review the recent " + strings.ReplaceAll(eventType, "_", " ") + " events from " + asset +
			": a sudden run of low-severity detections often precedes a real intrusion. Confirm the host's owner and current activity, " +
			"check for scanning or misconfiguration, and tune the sensor if the activity is legitimate.",
	}
}

// BurstReached reports whether a burst window holding n lower-severity
// events of one type from one asset has a burst.
func BurstReached(n int64) bool { return n >= BurstThreshold }

// BurstJoins decides what a batch's events do in a window that has reached
// its burst, given the events it held before (before) and whether the
// asset's burst alert of that type is open. They join the alert, unless the
// window had its burst already and that alert was resolved since: its
// stragglers raise nothing new. A window crossing the threshold now brings
// its earlier events into the alert too (takeEarlier).
func BurstJoins(before int64, alertOpen bool) (joins, takeEarlier bool) {
	if BurstReached(before) && !alertOpen {
		return false, false
	}
	return true, before > 0 && !BurstReached(before)
}

// Window returns the start of the burst window holding t.
func Window(t time.Time) time.Time { return t.Truncate(BurstWindow) }

func fingerprint(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

var malwareWords = []string{"malware", "trojan", "ransomware", "botnet", "command and control", "c2", "cnc", "backdoor", "exploit kit", "coinminer", "worm"}

func categorize(e Event) string {
	switch e.Type {
	case event.TypeBlocked:
		return event.CategoryBlocked
	case event.TypeDNS:
		return event.CategoryDNS
	case event.TypePolicy:
		return event.CategoryPolicy
	}
	text := words(e.Message + " " + e.Indicator + " " + e.Category)
	for _, w := range malwareWords {
		if strings.Contains(text, " "+w+" ") {
			return event.CategoryMalware
		}
	}
	for _, w := range reconWords {
		if strings.Contains(text, " "+w+" ") {
			return event.CategoryReconnaissance
		}
	}
	return event.CategoryIntrusion
}

var reconWords = []string{"scan", "scanning", "scanner", "nmap", "recon", "reconnaissance", "information leak", "sweep"}

// words lower-cases text into its words, space-separated and space-framed,
// so phrases match whole words only ("c2" not inside "ec2-1-2-3-4").
func words(text string) string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return " " + strings.Join(f, " ") + " "
}

// recommend says what the on-call engineer should do first, per category.
// Only an address or a host name can be blocked: a signature name (what
// Suricata alerts carry as their indicator) is described instead.
func recommend(category, asset, indicator string) string {
	ind := indicator
	if !blockable(indicator) {
		ind = "the outside address behind it"
	}
	switch category {
	case event.CategoryMalware:
		return "Isolate " + asset + " from the network now, run a full endpoint scan, and reset the credentials used on it. " +
			"Block " + ind + " at the firewall and search the other assets for the same indicator."
	case event.CategoryReconnaissance:
		return "Confirm whether the scanning of " + asset + " is authorised. If not, block " + ind +
			" at the perimeter, check which services on " + asset + " are exposed, and close the ones not needed."
	case event.CategoryBlocked:
		return "The connection to " + asset + " was blocked. Find the process on " + asset + " (or the outside host " + ind +
			") behind it; repeated blocks from inside suggest infection or misconfiguration."
	case event.CategoryDNS:
		return "Inspect DNS traffic from " + asset + " for tunnelling or a compromised resolver setting, and block " + ind +
			" on the DNS filter if it is not a known service."
	case event.CategoryPolicy:
		return "Contact the owner of " + asset + " about the policy breach (" + ind + "), record it, and correct the configuration or access that allowed it."
	}
	return "Investigate the activity on " + asset + " involving " + ind + ": check the host's logs around the alert time, " +
		"patch the targeted service, and block " + ind + " if it is external."
}

// blockable reports an indicator a firewall or DNS filter can block: an
// IP address or a dotted host name.
func blockable(indicator string) bool {
	if _, err := netip.ParseAddr(indicator); err == nil {
		return true
	}
	return strings.Contains(indicator, ".") && valid.DomainName(indicator)
}

// oneLine keeps text to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}
