package attack

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRulesNameCatalogTechniques(t *testing.T) {
	for i, r := range textRules {
		if len(r.all) == 0 || len(r.techniques) == 0 {
			t.Errorf("rule %d: no phrases or no techniques", i)
		}
		for _, id := range r.techniques {
			if _, ok := Lookup(id); !ok || id != normalizeID(id) {
				t.Errorf("rule %d: technique %q not in the catalog", i, id)
			}
		}
		for _, group := range r.all {
			if len(group) == 0 {
				t.Errorf("rule %d: empty group", i)
			}
			for _, p := range append(group, r.except...) {
				if len(phraseWords(p)) == 0 {
					t.Errorf("rule %d: phrase %q has no words", i, p)
				}
			}
		}
	}
	for et, ids := range eventTypeTechniques {
		for _, id := range ids {
			if _, ok := Lookup(id); !ok {
				t.Errorf("event type %s: technique %q not in the catalog", et, id)
			}
		}
	}
}

// ids renders a result as "T1046 T1595" for comparison.
func ids(ms []Match) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Technique.ID)
	}
	return strings.Join(s, " ")
}

func TestForText(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		// Real Suricata signatures: suricata-sample-data (MIT, © 2018 Frank
		// Hassanabad) and suricata-verify (MIT, OISF), via
		// shared/data/netsec.
		{"ET SCAN Potential SSH Scan OUTBOUND", "T1046"},
		{"ET SCAN Potential SSH Scan", "T1046"},
		{"ET SCAN NETWORK Incoming Masscan detected", "T1046 T1595"},
		{"ET SCAN NETWORK Outgoing Masscan detected", "T1046"},
		{"ET SCAN Suspicious inbound to MSSQL port 1433", "T1046 T1595"},
		{"ET SCAN Nessus User Agent", "T1046 T1595.002"},
		{"ET SCAN Behavioral Unusual Port 445 traffic Potential Scan or Infection", "T1046"},
		// "scanner" is deliberately a scan word.
		{"ET SCAN Sipvicious User-Agent Detected (friendly-scanner)", "T1046"},
		{"ET WEB_SERVER Muieblackcat scanner", "T1190 T1046"},
		// Path guessing is wordlist scanning, not credential brute force.
		{"ET WEB_SERVER IIS 8.3 Filename With Wildcard (Possible File/Dir Bruteforce)", "T1190 T1595.003"},
		{"ET EXPLOIT Possible ETERNALBLUE MS17-010 Echo Response", "T1190 T1210"},
		{"ET NETBIOS Microsoft Windows NETAPI Stack Overflow Inbound - MS08-067 (15)", "T1210"},
		{"ET EXPLOIT Apache Struts 2 REST Plugin XStream RCE (ProcessBuilder)", "T1190"},
		{"ET EXPLOIT Possible DOUBLEPULSAR Beacon Response", "T1190 T1210 T1071"},
		{"ET WEB_SERVER Possible SQL Injection Attempt UNION SELECT", "T1190"},
		{"GPL WEB_SERVER Tomcat directory traversal attempt", "T1190"},
		{"ET WEB_SERVER cmd.exe In URI - Possible Command Execution Attempt", "T1190 T1059.003"},
		{"ET WEB_SERVER /bin/sh In URI Possible Shell Command Execution Attempt", "T1190 T1059.004"},
		{"ET WEB_SERVER WebShell Generic - wget http - POST", "T1190 T1505.003"},
		{"SURICATA TLS overflow heartbeat encountered, possible exploit attempt (heartbleed)", "T1190"},
		{"ET CURRENT_EVENTS Nuclear EK Landing Apr 03 2015", "T1189"},
		{"ET WEB_CLIENT PowerShell call in script 1", "T1189 T1059.001"},
		{"ET TROJAN Possible NanoCore C2 60B", "T1071"},
		{"ET CNC Zeus Tracker Reported CnC Server group 11", "T1071"},
		{"ET CNC Ransomware Tracker Reported CnC Server group 101", "T1071 T1486"},
		{"ET MALWARE W32/OpenCandy Adware Checkin", "T1071"},
		{"ET TROJAN HTTP Executable Download from suspicious domain with direct request/fake browser (multiple families) ", "T1071 T1105"},
		{"ET POLICY PE EXE or DLL Windows file download HTTP", "T1105"},
		{"ET CURRENT_EVENTS SUSPICIOUS Firesale gTLD EXE DL with no Referer June 13 2016", "T1105"},
		{"ET CURRENT_EVENTS Observed Coin-Hive In Browser Mining Domain (coin-hive .com in TLS SNI)", "T1496"},
		{"ET POLICY Request for Coinhive Browser Monero Miner M2", "T1496"},
		{"ET TOR Known Tor Exit Node Traffic group 50", "T1090.003"},
		{"ET TOR Known Tor Relay/Router (Not Exit) Node Traffic group 433", "T1090.003"},
		{"ET POLICY DNS Query for TOR Hidden Domain .onion Accessible Via TOR", "T1090.003"},
		{"ET POLICY Powershell Command With Encoded Argument Over SMB - Likely Lateral Movement", "T1059.001 T1021.002"},
		{"ET POLICY WMIC WMI Request Over SMB - Likely Lateral Movement", "T1047 T1021.002"},
		{"ET POLICY SMB2 Remote AT Scheduled Job Create Request", "T1053 T1021.002"},
		{"ET DOS Possible NTP DDoS Inbound Frequent Un-Authed MON_LIST Requests IMPL 0x03", "T1498 T1499"},

		// Policy, P2P, chat and protocol-decode signatures name no attack.
		{"ET P2P BitTorrent DHT ping request", ""}, // "Tor" inside "BitTorrent"
		{"ET P2P Bittorrent P2P Client User-Agent (Transmission/1.x)", ""},
		{"ET POLICY Dropbox.com Offsite File Backup in Use", ""},
		{"ET POLICY Cleartext WordPress Login", ""}, // a login is not a failed one
		{"ET POLICY curl User-Agent Outbound", ""},
		{"ET CHAT IRC PRIVMSG command", ""},
		{"ET DNS Query to a *.pw domain - Likely Hostile", ""}, // DNS alone is not tunnelling
		{"ET CINS Active Threat Intelligence Poor Reputation IP TCP group 1", ""},
		{"SURICATA HTTP Host header ambiguous", ""},
		{"TLS FINGERPRINT TEST", ""},

		// Garrison's own demo event messages (demo.go).
		{"ET EXPLOIT Possible Apache Log4j RCE Attempt (CVE-2021-44228)", "T1190"},
		{"ET MALWARE Win32/Emotet CnC Activity", "T1071"},
		{"ET POLICY Outbound SMB to external network", "T1021.002"},
		{"Dropped TCP connection to known botnet controller", "T1071"},
		{"Blocked outbound RDP to the internet", "T1021.001"},
		{"DNS query with unusually long subdomain (possible tunnelling)", "T1071.004"},
		{"USB mass storage device connected", ""},
		{"Local administrator account login outside business hours", ""},

		// Event messages written for these tests.
		{"SSH brute force: 50 failed logins from 203.0.113.5", "T1110"},
		{"Possible Brute-Force Attack", "T1110"},
		{"Failed password for invalid user admin from 198.51.100.7 port 52211 ssh2", "T1110"},
		{"Brute Ratel C4 badger check-in", "T1071"}, // a C2 framework, not brute force
		{"mimikatz sekurlsa::logonpasswords seen on host", "T1003"},
		{"LSASS memory read by an unsigned process", "T1003"},
		{"Process injection into explorer.exe", "T1055"}, // not an injection attack on a server
		{"Angler Exploit Kit landing page", "T1189"},     // client side, not T1190
		{"Possible data exfiltration over HTTPS", "T1041"},
		{"DNS exfiltration via long TXT queries", "T1071.004 T1041"},
		{"User clicked a phishing link", "T1566"},
		{"Ransomware note written to file shares", "T1486"},
		{"PsExec service installed on FILESRV01", "T1021.002"},
		{"powershell.exe -enc JABzAD0A", "T1059.001"},
		{"XMRig cryptominer connecting to mining pool", "T1496"},

		// Keywords inside other words do not count.
		{"Toronto monitor history torrent editor", ""},
		{"Scandinavian scandal; scanf", ""},
		{"source force resource pierce", ""},
		{"C2C marketplace, B2C", ""},
		{"MS-DOS prompt, dosage, DOSBox", ""},
		{"smbios tables, smbclient", ""},
		{"unexploitable; sploit; brutes; dnsmasq tunnelbroker", ""},
		{"", ""},
		{" \t\n", ""},
	}
	for _, tt := range tests {
		got := ForText(tt.text)
		if s := ids(got); s != tt.want {
			t.Errorf("ForText(%q) = %q; want %q", tt.text, s, tt.want)
		}
		if tt.want == "" && got != nil {
			t.Errorf("ForText(%q) = %#v; want nil", tt.text, got)
		}
	}
}

func TestForTextReasons(t *testing.T) {
	tests := []struct {
		text  string
		index int
		want  string
	}{
		{"ET SCAN NETWORK Incoming Masscan detected", 1, `text mentions "SCAN" and "Incoming"`},
		{"Possible Brute-Force Attack", 0, `text mentions "Brute"`},
		{"ET EXPLOIT Possible ETERNALBLUE MS17-010 Echo Response", 0, `text mentions "ET EXPLOIT"`},
		{"ET EXPLOIT Possible ETERNALBLUE MS17-010 Echo Response", 1, `text mentions "ETERNALBLUE"`},
		{"Cobalt   Strike", 0, `text mentions "Cobalt   Strike"`},
		// Separators do not split phrases, but a long gap is not quoted.
		{"DNS" + strings.Repeat(".", 100) + "tunnel", 0, `text mentions "DNS" and "tunnel"`},
		{"c&c " + "lateral" + strings.Repeat(" ", 80) + "movement", 0, `text mentions "lateral movement"`},
		{"quote \"cnc\"", 0, `text mentions "cnc"`},
	}
	for _, tt := range tests {
		got := ForText(tt.text)
		if len(got) <= tt.index || got[tt.index].Reason != tt.want {
			t.Errorf("ForText(%q) = %+v; want [%d].Reason %s", tt.text, got, tt.index, tt.want)
		}
	}
}

func TestForTextLongInput(t *testing.T) {
	long := strings.Repeat("padding ", maxTextBytes/8+10)
	if got := ForText(long + "tor"); got != nil {
		t.Errorf("word past the limit matched: %v", ids(got))
	}
	if got := ids(ForText("tor " + long)); got != "T1090.003" {
		t.Errorf("got %q", got)
	}
	// A word that starts before the limit is read whole, not cut into a
	// shorter keyword.
	edge := strings.Repeat("x", maxTextBytes-1) + " scanner" // starts at the limit
	if got := ids(ForText(edge)); got != "" {
		t.Errorf("word starting past the limit matched: %q", got)
	}
	edge = strings.Repeat("x", maxTextBytes-3) + " scanner" // crosses it
	if got := ids(ForText(edge)); got != "T1046" {
		t.Errorf("word starting before the limit: %q", got)
	}
}

func TestForEventType(t *testing.T) {
	tests := []struct {
		in, want, reason string
	}{
		{"dns_anomaly", "T1071.004", `event type "dns_anomaly"`},
		{" Blocked_Connection ", "T1071", `event type "blocked_connection"`},
		{"threat_detected", "", ""},
		{"policy_violation", "", ""},
		{"unknown", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		got := ForEventType(tt.in)
		if ids(got) != tt.want || (tt.want == "" && got != nil) || (len(got) > 0 && got[0].Reason != tt.reason) {
			t.Errorf("ForEventType(%q) = %+v; want %s (%s)", tt.in, got, tt.want, tt.reason)
		}
	}
	if got := ForEventType("blocked_connection"); got[0].Technique.Name != "Application Layer Protocol" {
		t.Errorf("got %+v", got)
	}
}

// checkMatches holds for every ForText answer: catalog techniques, each once.
func checkMatches(t *testing.T, text string, ms []Match) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range ms {
		c, ok := Lookup(m.Technique.ID)
		if !ok || !equalTechnique(c, m.Technique) || seen[m.Technique.ID] || !strings.HasPrefix(m.Reason, "text mentions ") {
			t.Errorf("ForText(%q): bad match %+v", text, m)
		}
		seen[m.Technique.ID] = true
	}
}

// TestForTextSampleData runs every signature of the shared Suricata samples
// through ForText; it skips when shared/data is not beside the module.
func TestForTextSampleData(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "netsec")
	files, _ := filepath.Glob(filepath.Join(dir, "suricata_eve_*.jsonl"))
	if len(files) == 0 {
		t.Skip("SKIPPED: the Suricata samples are read at run time from " + dir + ", a data tree beside the repository " +
			"that this checkout lacks (some of it is GPL and not copied in)")
	}
	sigs := map[string]bool{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var e struct {
				Alert *struct{ Signature string } `json:"alert"`
			}
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Alert != nil {
				sigs[e.Alert.Signature] = true
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	matched := 0
	for s := range sigs {
		ms := ForText(s)
		checkMatches(t, s, ms)
		if len(ms) > 0 {
			matched++
		}
	}
	t.Logf("%d of %d distinct signatures map to a technique", matched, len(sigs))
}

func FuzzForText(f *testing.F) {
	for _, s := range []string{"ET SCAN Potential SSH Scan", "DNS tunnel", "Brute-Force", "c&c", "\xff\xfe tor", "ünïcödé scan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMatches(t, s, ForText(s))
	})
}
