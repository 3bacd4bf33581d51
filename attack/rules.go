package attack

// textRule maps words in event text to techniques. Phrases are matched as
// whole words (see ForText); every group in all must have one of its
// phrases present, and any except phrase vetoes the rule. Order is the
// order of ForText's answer, so broad evidence of how the attacker got in
// comes before what they did next.
type textRule struct {
	all        [][]string
	except     []string
	techniques []string
}

// one is a rule needing any one of the phrases.
func one(phrases ...string) [][]string { return [][]string{phrases} }

// Shared word lists.
var (
	// "scanner" is counted: a scanner seen on the wire is scanning. Other
	// words merely starting with "scan" ("Scandinavia") are not.
	scanWords = []string{"scan", "scans", "scanned", "scanning", "scanner", "scanners",
		"portscan", "portscanning", "port sweep", "nmap", "masscan", "zmap"}

	// Guessing paths on a web server is wordlist scanning, not password
	// brute force, though signatures call it "Bruteforce" too.
	wordlistPhrases = []string{"dir bruteforce", "dir brute force", "directory bruteforce",
		"directory brute force", "directory brute forcing", "dirbuster", "gobuster", "wordlist scanning"}
)

var textRules = []textRule{
	// Exploitation of a public-facing service. The ET/GPL EXPLOIT and
	// WEB_SERVER categories are attacks on servers by definition.
	{all: one("ET EXPLOIT", "GPL EXPLOIT", "ET WEB_SERVER", "GPL WEB_SERVER",
		"exploit", "exploits", "exploited", "exploiting", "exploitation",
		"RCE", "remote code execution", "code execution", "command execution",
		"SQLi", "directory traversal", "path traversal", "remote file inclusion",
		"local file inclusion", "XXE", "heartbleed", "shellshock", "log4shell"),
		// An exploit kit attacks browsers: drive-by, below.
		except:     []string{"exploit kit", "exploit kits"},
		techniques: []string{"T1190"}},
	// Kept apart so that "process injection" vetoes only this word.
	{all: one("injection", "injections"),
		except:     []string{"process injection", "DLL injection", "thread injection"},
		techniques: []string{"T1190"}},
	{all: one("eternalblue", "eternalromance", "eternalchampion", "doublepulsar",
		"MS17-010", "MS08-067", "bluekeep"),
		techniques: []string{"T1210"}},
	{all: one("ET WEB_CLIENT", "GPL WEB_CLIENT", "exploit kit", "exploit kits", "EK",
		"drive-by", "driveby"),
		techniques: []string{"T1189"}},
	{all: one("phish", "phishing", "phished", "spearphishing", "spear phishing"),
		techniques: []string{"T1566"}},

	// Reconnaissance and discovery. Text cannot see direction unless it
	// says so; only an explicit inbound scan is the attacker's Active
	// Scanning, any scan is Network Service Discovery.
	{all: [][]string{scanWords}, techniques: []string{"T1046"}},
	{all: [][]string{scanWords, {"inbound", "incoming"}}, techniques: []string{"T1595"}},
	{all: one("nessus", "nikto", "openvas", "acunetix", "sqlmap", "wpscan", "zgrab"),
		techniques: []string{"T1595.002"}},
	{all: [][]string{wordlistPhrases}, techniques: []string{"T1595.003"}},

	// Credential access.
	{all: one("brute", "bruteforce", "bruteforced", "bruteforcing",
		"password guessing", "password spray", "password spraying", "credential stuffing",
		"failed login", "failed logins", "login failed", "login failure", "login failures",
		"failed logon", "failed logons", "logon failed", "logon failure", "logon failures",
		"failed password", "failed authentication", "authentication failed",
		"authentication failure", "authentication failures"),
		// "Brute Ratel" is a C2 framework, not a brute force.
		except:     append([]string{"brute ratel"}, wordlistPhrases...),
		techniques: []string{"T1110"}},
	{all: one("mimikatz", "credential dumping", "credential dump", "credentials dump",
		"credential dumper", "dump credentials", "password dump", "password dumping",
		"hashdump", "hash dump", "secretsdump", "dcsync", "lsass dump", "lsass dumping",
		"lsass memory", "ntds.dit"),
		techniques: []string{"T1003"}},

	// Execution.
	{all: one("powershell", "pwsh"), techniques: []string{"T1059.001"}},
	{all: one("cmd.exe", "cmd shell", "windows command shell"), techniques: []string{"T1059.003"}},
	{all: one("/bin/sh", "/bin/bash", "bash shell", "unix shell"), techniques: []string{"T1059.004"}},
	{all: one("reverse shell", "bind shell"), techniques: []string{"T1059"}},
	{all: one("WMI", "WMIC"), techniques: []string{"T1047"}},
	{all: one("scheduled task", "scheduled tasks", "scheduled job", "scheduled jobs", "schtasks"),
		techniques: []string{"T1053"}},
	{all: one("process injection", "DLL injection", "thread injection", "process hollowing"),
		techniques: []string{"T1055"}},
	{all: one("webshell", "webshells", "web shell", "web shells", "china chopper"),
		techniques: []string{"T1505.003"}},

	// Lateral movement.
	{all: one("lateral movement", "psexec", "paexec", "SMB", "SMB1", "SMB2", "SMB3",
		"SMBv1", "SMBv2", "SMBv3", "admin share", "admin shares", "administrative share",
		"administrative shares"),
		techniques: []string{"T1021.002"}},
	{all: one("RDP", "remote desktop"), techniques: []string{"T1021.001"}},

	// Command and control.
	{all: one("trojan", "trojans", "CnC", "C2", "C&C", "command and control",
		"beacon", "beacons", "beaconing", "checkin", "botnet", "botnets",
		"meterpreter", "cobalt strike", "cobaltstrike", "brute ratel"),
		techniques: []string{"T1071"}},
	{all: [][]string{{"DNS"}, {"tunnel", "tunnels", "tunneling", "tunnelling", "tunneled",
		"tunnelled", "exfiltration", "exfil"}},
		techniques: []string{"T1071.004"}},
	{all: one("dnscat", "dnscat2", "iodine"), techniques: []string{"T1071.004"}},
	{all: one("Tor", "onion"), techniques: []string{"T1090.003"}},
	{all: one("downloader", "dropper"), techniques: []string{"T1105"}},
	{all: [][]string{
		{"download", "downloads", "downloaded", "downloading", "DL", "transfer"},
		{"exe", "executable", "executables", "ELF", "DLL", "PE", "payload", "payloads",
			"malware", "second stage", "HTA", "ps1", "binary", "binaries"}},
		techniques: []string{"T1105"}},

	// Exfiltration and impact.
	{all: one("exfiltration", "exfiltrate", "exfiltrated", "exfiltrating", "exfil"),
		techniques: []string{"T1041"}},
	{all: one("ransomware", "ransom", "wannacry", "wannacrypt", "lockbit", "ryuk"),
		techniques: []string{"T1486"}},
	{all: one("coinminer", "coinminers", "coin miner", "coin miners", "coin mining",
		"cryptominer", "cryptominers", "crypto miner", "cryptomining", "crypto mining",
		"cryptocurrency miner", "cryptocurrency mining", "cryptojacking",
		"coinhive", "coin hive", "monero miner", "monero mining", "xmrig", "mining pool"),
		techniques: []string{"T1496"}},
	{all: one("DDoS", "amplification", "flood", "floods", "flooding"),
		techniques: []string{"T1498"}},
	{all: one("DoS", "denial of service"),
		except:     []string{"MS-DOS"},
		techniques: []string{"T1499"}},
}
