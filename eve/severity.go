package eve

import (
	"net/netip"
	"strings"

	"garrison/event"
)

// An alert's severity comes from one table (severityTable): the class of
// its signature and the direction of its traffic. Suricata's own 1–3
// severity is the starting point, which the class caps or replaces: ET
// ships POLICY and INFO rules at severity 1 that page nobody in a SOC, and
// a one-sender exploit attempt from the internet at a host is not a
// compromise, while an internal host talking to its command-and-control
// is one.

// Signature classes.
const (
	ClassNotice     = "notice"     // ET POLICY, INFO, CHAT, P2P, GAMES, DNS…: what a network does, not an attack
	ClassDecoder    = "decoder"    // SURICATA …: Suricata's protocol and decoder anomalies
	ClassC2         = "c2"         // CNC, MALWARE, TROJAN, WORM, COINMINER: a host is compromised
	ClassResponse   = "response"   // ATTACK_RESPONSE: what a compromised host answers (its source)
	ClassExploit    = "exploit"    // EXPLOIT, WEB_SERVER, WEB_SPECIFIC_APPS, NETBIOS, CURRENT_EVENTS…: an attempt
	ClassScan       = "scan"       // SCAN: reconnaissance
	ClassReputation = "reputation" // CINS, DROP, DSHIELD, COMPROMISED, TOR, 3CORESec…: a listed address
	ClassDoS        = "dos"        // DOS
	ClassOther      = "other"      // the rest: Suricata's severity as it is
)

// Directions of an alert's traffic, by which side is internal (private,
// loopback or link-local).
const (
	Inbound  = "inbound"  // from outside to an internal host
	Outbound = "outbound" // from an internal host to outside
	Internal = "internal" // between internal hosts
	External = "external" // between outside hosts (a sensor on a public segment)
)

// classPrefixes are the signature prefixes of each class, after "ET " or
// "GPL ". The first word decides: ET POLICY with the category "A Network
// Trojan was detected" is still policy.
var classPrefixes = map[string]string{
	"POLICY": ClassNotice, "INFO": ClassNotice, "CHAT": ClassNotice, "P2P": ClassNotice, "GAMES": ClassNotice,
	"TFTP": ClassNotice, "SNMP": ClassNotice, "DNS": ClassNotice, "USER_AGENTS": ClassNotice, "HUNTING": ClassNotice, "ICMP_INFO": ClassNotice,
	"CNC": ClassC2, "MALWARE": ClassC2, "TROJAN": ClassC2, "WORM": ClassC2, "MOBILE_MALWARE": ClassC2, "COINMINER": ClassC2,
	"ATTACK_RESPONSE": ClassResponse, "PHISHING": ClassC2, "VIRUS": ClassC2, "BOTCC": ClassC2,
	"EXPLOIT": ClassExploit, "EXPLOIT_KIT": ClassC2, "WEB_SERVER": ClassExploit, "WEB_SPECIFIC_APPS": ClassExploit,
	"NETBIOS": ClassExploit, "CURRENT_EVENTS": ClassExploit, "WEB_CLIENT": ClassExploit, "SQL": ClassExploit,
	"RPC": ClassExploit, "SHELLCODE": ClassExploit, "WEB_ATTACKS": ClassExploit, "WEB_PHP": ClassExploit,
	"WEB_MISC": ClassExploit, "WEB_IIS": ClassExploit, "WEB_CGI": ClassExploit,
	"SCAN": ClassScan,
	"CINS": ClassReputation, "DROP": ClassReputation, "DSHIELD": ClassReputation, "COMPROMISED": ClassReputation,
	"TOR": ClassReputation, "3CORESEC": ClassReputation, "CIARMY": ClassReputation, "SPAMHAUS": ClassReputation,
	"DOS": ClassDoS,
}

// classCategories classify what no prefix does (Snort-style rules, local
// rules) by Suricata's classtype description.
var classCategories = map[string]string{
	"a network trojan was detected":                      ClassC2,
	"malware command and control activity detected":      ClassC2,
	"successful administrator privilege gain":            ClassResponse,
	"successful user privilege gain":                     ClassResponse,
	"attempted administrator privilege gain":             ClassExploit,
	"attempted user privilege gain":                      ClassExploit,
	"web application attack":                             ClassExploit,
	"access to a potentially vulnerable web application": ClassExploit,
	"executable code was detected":                       ClassExploit,
	"detection of a network scan":                        ClassScan,
	"attempted denial of service":                        ClassDoS,
	"potential corporate privacy violation":              ClassNotice,
	"not suspicious traffic":                             ClassNotice,
	"generic protocol command decode":                    ClassDecoder,
}

// Classify returns a signature's class.
func Classify(signature, category string) string {
	words := strings.Fields(signature)
	switch {
	case len(words) >= 2 && (words[0] == "ET" || words[0] == "GPL"):
		if c, ok := classPrefixes[strings.ToUpper(words[1])]; ok {
			return c
		}
	case len(words) >= 1 && words[0] == "SURICATA":
		return ClassDecoder
	}
	if c, ok := classCategories[strings.ToLower(strings.TrimSpace(category))]; ok {
		return c
	}
	if compromised(signature, category) { // a local rule naming malware or C2
		return ClassC2
	}
	return ClassOther
}

// compromiseWords mark a signature of a local rule as C2, matched
// case-insensitively as substrings; compromiseTokens as whole words, so
// that "c2" inside a host name does not count.
var (
	compromiseWords  = [...]string{"malware", "trojan", "ransomware", "command and control", "backdoor", "botnet"}
	compromiseTokens = [...]string{"cnc", "c2"}
)

func compromised(texts ...string) bool {
	for _, t := range texts {
		t = strings.ToLower(t)
		for _, w := range compromiseWords {
			if strings.Contains(t, w) {
				return true
			}
		}
		for _, f := range strings.FieldsFunc(t, notAlnum) {
			for _, w := range compromiseTokens {
				if f == w {
					return true
				}
			}
		}
	}
	return false
}

func notAlnum(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
}

// Direction says which way traffic between two addresses goes.
func Direction(src, dst netip.Addr) string {
	switch in, out := internal(src), internal(dst); {
	case !in && out:
		return Inbound
	case in && !out:
		return Outbound
	case in && out:
		return Internal
	}
	return External
}

// rule is one row of the table: the severity a class's alert has in a
// direction, as a ceiling over Suricata's own (cap) or in place of it (set).
type rule struct {
	cap, set event.Severity
}

const none = event.Severity(-1)

func capAt(s event.Severity) rule { return rule{cap: s, set: none} }
func setTo(s event.Severity) rule { return rule{cap: none, set: s} }

// severityTable is the whole mapping (docs/api.md, "Suricata severity"):
// by class, then direction.
var severityTable = map[string]map[string]rule{
	// What a network does: at most low, whichever way.
	ClassNotice: {Inbound: capAt(event.Low), Outbound: capAt(event.Low), Internal: capAt(event.Low), External: capAt(event.Low)},
	// Decoder anomalies are evidence for a search, never a page.
	ClassDecoder: {Inbound: setTo(event.Info), Outbound: setTo(event.Info), Internal: setTo(event.Info), External: setTo(event.Info)},
	// A compromised internal host stays critical.
	ClassC2: {Inbound: setTo(event.Critical), Outbound: setTo(event.Critical), Internal: setTo(event.Critical), External: setTo(event.High)},
	// A compromised host answers from the source: ours when it is inside.
	ClassResponse: {Inbound: capAt(event.Medium), Outbound: setTo(event.Critical), Internal: setTo(event.Critical), External: capAt(event.Medium)},
	// An attempt from outside is at most medium unless its host runs the
	// product targeted, which only the inventory knows (Event.Target,
	// target.go); an internal host attacking is not an attempt on us but
	// a sign it is compromised.
	ClassExploit: {Inbound: capAt(event.Medium), Outbound: setTo(event.High), Internal: setTo(event.High), External: capAt(event.Medium)},
	// Scans from the internet are weather; an internal host scanning is not.
	ClassScan: {Inbound: capAt(event.Low), Outbound: setTo(event.Medium), Internal: setTo(event.Medium), External: capAt(event.Low)},
	// A listed address knocking is weather; an internal host reaching one is worth a look.
	ClassReputation: {Inbound: capAt(event.Low), Outbound: setTo(event.Medium), Internal: capAt(event.Low), External: capAt(event.Low)},
	ClassDoS:        {Inbound: capAt(event.Medium), Outbound: setTo(event.High), Internal: capAt(event.Medium), External: capAt(event.Medium)},
}

// suricataSeverity maps Suricata's 1 (most severe) .. 3 scale.
func suricataSeverity(n int64, ok bool) event.Severity {
	switch {
	case !ok:
		return event.Info
	case n == 1:
		return event.High
	case n == 2:
		return event.Medium
	case n == 3:
		return event.Low
	}
	return event.Info
}

// Severity is an alert's severity: Suricata's, through the table row of
// its class and direction.
func Severity(suricata int64, hasSeverity bool, class, direction string) event.Severity {
	s := suricataSeverity(suricata, hasSeverity)
	r, ok := severityTable[class][direction]
	switch {
	case !ok:
		return s
	case r.set != none:
		return r.set
	}
	return min(s, r.cap)
}
