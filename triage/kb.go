package triage

import "slices"

// Priorities, as the API spells them.
const (
	PriorityLow    = "low"
	PriorityMedium = "medium"
	PriorityHigh   = "high"
)

// EscalateBelow: a triage whose confidence is below this goes to the human
// queue.
const EscalateBelow = 0.6

// Article is one knowledge-base entry: a category of problem, its base
// priority, the steps that resolve it and the phrases that recognise it.
type Article struct {
	Category string   `json:"category"` // slug, e.g. "account_lockout"
	Title    string   `json:"title"`    // "Account locked out"
	Priority string   `json:"priority"` // base priority
	Steps    []string `json:"steps"`    // ordered, concrete resolution steps

	// match recognises the category. critical phrases count towards it
	// too, and also force the priority to high: they mean a compromise or a
	// hostile departure is in progress, not just a fault.
	match       []term
	critical    []term
	criticalWhy string // says why a critical phrase makes it high
}

// term is one weighted phrase. tokens is the phrase normalised exactly like
// ticket text and ids their word numbers, both filled in when the index is
// built.
type term struct {
	phrase string
	weight float64
	tokens []string
	ids    []int32
}

// Phrase weights. A strong phrase names the problem on its own, a medium one
// is typical of it, a weak one only hints (and is often shared).
const (
	strongW = 3
	mediumW = 2
	weakW   = 1
)

func strong(p ...string) []term { return weighted(strongW, p) }
func medium(p ...string) []term { return weighted(mediumW, p) }
func weak(p ...string) []term   { return weighted(weakW, p) }

func weighted(w float64, phrases []string) []term {
	ts := make([]term, len(phrases))
	for i, p := range phrases {
		ts[i] = term{phrase: p, weight: w}
	}
	return ts
}

// generalCategory is the fallback for tickets nothing in the base matches.
const generalCategory = "general"

// KnowledgeBase lists every article, in a stable order. The slices are
// copies; changing them does not change the classifier.
func KnowledgeBase() []Article {
	out := make([]Article, len(kb))
	for i, a := range kb {
		out[i] = a
		out[i].Steps = slices.Clone(a.Steps)
	}
	return out
}

// urgency raises the suggested priority one level: the ticket says the
// impact is wide, the person important, or the deadline now.
var urgency = weighted(0, []string{
	"urgent", "urgently", "asap", "as soon as possible", "emergency", "critical",
	"entire office", "whole office", "entire company", "whole company",
	"all users", "all staff", "everyone", "nobody can", "no one can",
	"production down", "production is down", "cannot work", "can't work",
	"unable to work", "ceo", "managing director", "immediately",
})

// kb is the knowledge base. Order matters only for ties, which go to the
// earlier article; "general" is last and has no phrases.
var kb = []Article{
	{
		Category: "account_lockout",
		Title:    "Account locked out",
		Priority: PriorityMedium,
		Steps: []string{
			"Verify the user's identity through the client's approved process (callback to the number on file) before changing anything on the account.",
			"Find the lockout source: on-prem, search the PDC emulator's Security log for event 4740 (it names the caller computer) or run LockoutStatus.exe; in Entra ID, read the user's sign-in logs for the failing app, device and IP address.",
			"Look for stale credentials on that source: phones/tablets with the old mail password, mapped drives, saved entries in Credential Manager, services or scheduled tasks running as the user, and disconnected RDP sessions.",
			"If the failures come from unfamiliar IPs or countries, treat it as password spraying: keep the account locked, reset the password, revoke sessions and hand it to security.",
			"Unlock the account (ADUC → Account tab or Unlock-ADAccount); for Entra smart lockout, let the lockout period expire or have the user complete self-service password reset.",
			"Update or remove the stale credentials found, then have the user sign in and check the bad-password count stays at zero for the next hour.",
			"Record the lockout source in the ticket; if it recurs, review the lockout threshold and move the user to MFA or passwordless sign-in.",
		},
		match: slices.Concat(
			strong("locked out", "lockout", "account locked", "locked account",
				"account is locked", "account has been locked", "account got locked",
				"keeps locking", "keeps getting locked", "unlock my account"),
			medium("too many attempts", "too many failed", "failed attempts",
				"failed login attempts", "unlock", "locks me out", "locked me out"),
			weak("locked", "password", "can't log in", "can't sign in", "cant login"),
		),
	},
	{
		Category: "password_reset",
		Title:    "Password reset or expired",
		Priority: PriorityMedium,
		Steps: []string{
			"Verify identity out of band (callback to the number on file, manager confirmation or the client's verification questions); never reset on the strength of an e-mail alone.",
			"Check whether the password expired, was forgotten or the account is actually locked (AD: net user <name> /domain, pwdLastSet; Entra: sign-in logs) so you fix the right thing.",
			"Reset it with a temporary password delivered through a separate channel (phone or SMS, not the mailbox the user cannot open) and require a change at next sign-in.",
			"For a remote domain-joined laptop, have the user connect to the VPN before signing in (or use the pre-logon VPN) so the laptop learns the new password.",
			"Remind the user to update the password in the phone mail app, saved Wi-Fi profiles and mapped drives, or a lockout will follow.",
			"If self-service password reset is licensed but the user is not registered for it, register them now so they can do it themselves next time.",
			"Confirm the user can sign in to Windows, e-mail and their line-of-business apps before closing.",
		},
		match: slices.Concat(
			strong("password reset", "reset my password", "reset password",
				"reset the password", "forgot my password", "forgotten password",
				"forgot password", "password expired", "password has expired",
				"password expiry", "change my password", "password change",
				"self service password reset", "sspr"),
			medium("password", "new password", "expired", "forgotten", "forgot"),
			weak("reset", "change"),
		),
	},
	{
		Category: "mfa",
		Title:    "MFA / authenticator problem",
		Priority: PriorityMedium,
		Steps: []string{
			"Verify the user's identity through the client's out-of-band process before touching authentication methods; MFA resets are a favourite social-engineering target.",
			"Ask whether any prompt arrived that the user did not start; if so, treat it as MFA fatigue: reset the password, revoke sessions and review the sign-in logs before anything else.",
			"For a new or lost phone: in Entra ID → user → Authentication methods, delete the old Authenticator registration (and wipe a lost managed device in Intune), then require re-registration.",
			"Issue a Temporary Access Pass so the user can sign in and register Microsoft Authenticator on the new phone at aka.ms/mysecurityinfo.",
			"If codes are rejected, check the phone's date and time are set automatically (one-time codes depend on the clock) and that the user picks the right account in the app.",
			"Register a second method (another phone number, a FIDO2 key or a second device) so one lost phone cannot lock the user out again.",
			"Confirm a successful sign-in with the new method and note the method change in the ticket for audit.",
		},
		match: slices.Concat(
			strong("mfa", "2fa", "two factor", "twofactor", "2 factor", "multi factor",
				"multifactor", "authenticator", "authenticator app",
				"verification code", "authentication app", "mfa prompt"),
			medium("new phone", "lost my phone", "lost phone", "changed phone",
				"changed my phone", "replaced my phone", "phone was stolen",
				"sign in request", "approve the sign in", "one time code",
				"otp", "number matching", "security key", "yubikey", "duo",
				"code not working", "text code"),
			weak("phone", "code", "sms", "text message", "prompt", "approve"),
		),
		criticalWhy: "prompts the user did not start mean someone else has the password (MFA fatigue)",
		critical: slices.Concat(
			strong("mfa fatigue"),
			medium("didn't request", "did not request", "wasn't me", "was not me",
				"unexpected prompt", "prompts i didn't", "random prompts",
				"keeps asking me to approve"),
		),
	},
	{
		Category: "phishing_report",
		Title:    "Suspicious e-mail reported",
		Priority: PriorityMedium,
		Steps: []string{
			"Tell the user not to click, reply or forward (except to the report address), and to use the Report Phishing button so you receive the original with headers.",
			"Analyse it: display name vs. real sender domain, SPF/DKIM/DMARC results, Reply-To mismatch; open links and attachments only in a sandbox (urlscan.io, VirusTotal).",
			"Search the tenant for the same message (Defender Threat Explorer or Content Search), remove every copy, and block the sender, domain and URLs in the tenant block list.",
			"Ask who interacted with it: anyone who entered credentials gets a password reset, session revocation, and a check of inbox rules, forwarding, MFA methods and recent sign-ins.",
			"If an attachment was opened, run a full EDR scan on that device and review its alerts; isolate it if anything is found.",
			"For payment or bank-detail-change requests, tell finance to verify by phone on a known number before paying anything.",
			"Thank the reporter, close with the verdict, and use the example in the next security-awareness session.",
		},
		match: slices.Concat(
			strong("phishing", "phish", "phishy", "suspicious email", "suspicious e-mail",
				"suspicious message", "suspicious link", "scam email", "spoofed",
				"spoofing", "fake email", "pretending to be", "impersonating",
				"gift card", "change of bank details", "bank details changed",
				"wire transfer", "smishing", "vishing", "suspicious text",
				"suspicious call"),
			medium("suspicious", "scam", "looks fake", "not legit", "legitimate",
				"sender", "attachment", "dodgy", "strange email", "weird email",
				"weird text", "strange text", "asking for my code", "gmail address",
				"external address", "payment request", "urgent payment"),
			weak("link", "invoice", "clicked"),
		),
		criticalWhy: "the user may have handed over credentials or run the attacker's code",
		critical: slices.Concat(
			strong("clicked the link", "clicked on the link", "clicked a link",
				"clicked on it", "entered my password", "entered my credentials",
				"typed my password", "gave my password", "opened the attachment",
				"downloaded the attachment"),
		),
	},
	{
		Category: "account_compromise",
		Title:    "Compromised account",
		Priority: PriorityHigh,
		Steps: []string{
			"Contain first: reset the password, revoke all sessions and refresh tokens (Revoke-MgUserSignInSession), and block sign-in until the account is checked.",
			"Review the sign-in logs for the last 30 days: unfamiliar IPs, countries, devices or legacy-protocol sign-ins, and when the attacker first got in.",
			"Check the mailbox for attacker persistence: new inbox rules (especially ones moving or deleting mail), forwarding to external addresses, delegates, and sent items the user did not write.",
			"Check MFA methods and registered devices for anything the user did not add, and remove it; review OAuth app consents granted by the user.",
			"Re-enable sign-in with a new password and re-registered MFA, and check the user's devices with the EDR in case an infostealer took the password.",
			"If the account sent phishing or fake invoices, warn the recipients and the client's finance team, and search the tenant for the same messages.",
			"Record the timeline and what the attacker could reach; ask the client whether data-breach notification obligations apply.",
		},
		match: slices.Concat(
			strong("hacked", "compromised", "account compromised", "account was hacked",
				"emails i didn't send", "emails i did not send", "sending spam",
				"sent spam", "unusual sign in", "unusual activity",
				"suspicious sign in", "impossible travel", "someone logged into",
				"someone accessed my account", "someone is using my account"),
			medium("didn't send", "did not send", "inbox rule", "forwarding rule",
				"unknown device", "unauthorized", "unauthorised", "breach",
				"sign in from"),
		),
	},
	{
		Category: "malware_alert",
		Title:    "Malware or antivirus alert",
		Priority: PriorityHigh,
		Steps: []string{
			"If the EDR reports an active or unremediated threat, network-isolate the device from the EDR console straight away; isolation is reversible, a spreading infection is not.",
			"Pull the detection details: file path, hash, process tree, user and first-seen time; check the hash on VirusTotal and whether the EDR blocked, quarantined or only detected it.",
			"Hunt for the same hash or indicator on the client's other endpoints, and for outbound connections from this device to known-bad IPs or domains.",
			"For browser pop-ups or redirects: remove unknown extensions and site notification permissions, reset the browser, and uninstall recently added unknown programs.",
			"Run a full EDR scan plus a second-opinion scanner (Microsoft Safety Scanner or Malwarebytes) and confirm both are clean.",
			"If credentials may have been exposed (infostealer, keylogger), reset the user's passwords from a clean device and revoke their sessions.",
			"If you cannot be certain it is clean, save the user's data and reimage; then release isolation and record the root cause (download, attachment, USB).",
		},
		match: slices.Concat(
			strong("virus", "viruses", "malware", "trojan", "antivirus", "anti virus",
				"edr", "threat detected", "quarantined", "infected", "infection",
				"spyware", "adware", "keylogger", "sentinelone", "crowdstrike",
				"defender alert", "browser hijacked"),
			medium("pop up", "pop ups", "popup", "redirects", "redirected",
				"detected", "detection", "quarantine", "threat", "suspicious process",
				"sophos", "defender", "malwarebytes"),
			weak("alert", "scan"),
		),
	},
	{
		Category: "ransomware",
		Title:    "Ransomware / encrypted files",
		Priority: PriorityHigh,
		Steps: []string{
			"Isolate the machine immediately: unplug the network cable and turn off Wi-Fi, or use EDR network isolation; do not power it off, memory may hold keys and evidence.",
			"Cut the spread: disconnect the user's mapped shares and pause OneDrive/SharePoint sync, and check other devices and shares for the same file extension or ransom note.",
			"Escalate now to the security lead and the client's incident contact, and start an incident log of times, observations and actions.",
			"Photograph the ransom note and record the new file extension; identify the strain (e.g. ID Ransomware); do not contact the attackers or pay.",
			"Disable the affected user's account and reset privileged credentials (domain admin, backup admin) from a clean machine, since attackers often hold them.",
			"Check the backups are intact and offline or immutable before touching them, and plan restoration from the last clean point once the entry point is found and closed.",
			"Check cyber-insurance, legal and breach-notification obligations with the client before rebuilding systems.",
		},
		match: slices.Concat(
			strong("ransomware", "ransom", "ransom note", "encrypted", "files encrypted",
				"decrypt", "decryption", "decryptor", "bitcoin", "lockbit",
				"how to recover your files", "files have been renamed"),
			medium("strange extension", "file extension changed", "extension changed",
				"all my files", "can't open any files", "files won't open"),
			weak("extension", "renamed"),
		),
	},
	{
		Category: "vpn",
		Title:    "VPN connection problem",
		Priority: PriorityMedium,
		Steps: []string{
			"Get the VPN client, version and the exact error, and check whether it is this user or everyone (gateway status, licence or concurrent-user limit).",
			"Confirm the user's own internet works (open a public website) and that they are not behind a captive portal or a hotel/guest network that blocks the VPN ports.",
			"Check the user's credentials on the VPN: expired or locked AD password, missing VPN group membership, or an unanswered MFA prompt.",
			"Restart the VPN client service; if that fails, reinstall or update the client to the version the gateway expects and re-import the connection profile.",
			"Read the gateway log for the user's attempt (authentication failure, timeout or certificate error) and check for expired server or client certificates.",
			"If connected but nothing loads, check DNS on the tunnel adapter and whether the home network uses the same subnet as the office (e.g. both 192.168.1.0/24).",
			"Confirm the user reaches the shares and apps they need over the VPN before closing.",
		},
		match: slices.Concat(
			strong("vpn", "forticlient", "globalprotect", "anyconnect", "openvpn",
				"wireguard", "always on vpn", "remote access"),
			medium("tunnel", "split tunnel", "working from home", "work from home",
				"from home", "connect remotely"),
			weak("remote", "remotely", "home", "connect", "connecting"),
		),
	},
	{
		Category: "email_delivery",
		Title:    "E-mail not sending or receiving",
		Priority: PriorityMedium,
		Steps: []string{
			"Get one concrete example (sender, recipient, time, subject) and the full bounce text; the status code (5.1.1, 5.7.1, …) usually names the cause.",
			"Run a message trace in the Exchange admin center (or the mail filter's logs) to see whether it was received, quarantined, sent to junk or rejected.",
			"For inbound mail in junk or quarantine: release it, allow the sender only once you are sure it is legitimate, and check the user's inbox rules for one moving or deleting mail.",
			"For outbound rejections: check the domain's SPF, DKIM and DMARC records (MXToolbox) and whether the sending IP or domain is on a blocklist; request delisting once the cause is fixed.",
			"Check the mailbox is not over quota and that no forwarding or transport rule interferes.",
			"For Outlook-only symptoms (stuck in Outbox, not syncing), test Outlook on the web; if that works, repair or recreate the Outlook profile.",
			"Send test messages both ways and confirm delivery with the user before closing.",
		},
		match: slices.Concat(
			strong("bounce", "bounced", "bounce back", "bounceback", "ndr",
				"non delivery", "undeliverable", "delivery failed", "delivery failure",
				"not receiving emails", "not getting emails", "can't send emails",
				"emails not arriving", "spam folder", "junk folder", "going to junk",
				"going to spam", "stuck in outbox", "mailbox full"),
			medium("not receiving", "can't send", "outbox", "junk", "spf", "dkim",
				"dmarc", "blacklisted", "blocklisted", "mail flow", "returned",
				"quarantine", "rejected"),
			weak("email", "e-mail", "mail", "outlook", "inbox", "recipient"),
		),
	},
	{
		Category: "printer",
		Title:    "Printer problem",
		Priority: PriorityLow,
		Steps: []string{
			"Ask which printer (name and location), the exact error on the PC and on the printer's panel, and whether colleagues can print to it; one user versus everyone changes the fix.",
			"Check the printer itself: on, online, no jam, paper and toner loaded, and reachable on the network (ping its IP or open its web page).",
			"Clear stuck jobs by cancelling the queue; if it will not clear, restart the Print Spooler service (on the print server for shared printers).",
			"Check the PC has the right printer mapped and set as default; remove and re-add it with the vendor's current driver rather than a generic one.",
			"If the printer's IP address changed, give it a DHCP reservation and update the port on the print server or PCs.",
			"For scan-to-email or scan-to-folder failures, check the SMTP relay or app password and the destination share's credentials stored on the device.",
			"Print a test page from the user's PC and confirm the output; book an engineer visit for physical faults.",
		},
		match: slices.Concat(
			strong("printer", "print", "printing", "can't print", "won't print",
				"unable to print", "print job", "print queue", "print spooler",
				"paper jam", "toner", "scan to email", "scan to folder", "scanner"),
			medium("jammed", "jam", "spooler", "ink", "cartridge", "copier", "mfp",
				"paper", "printout"),
		),
	},
	{
		Category: "backup_failure",
		Title:    "Backup failure",
		Priority: PriorityMedium,
		Steps: []string{
			"Open the backup console, read the failing job's error for each affected machine and count the consecutive failed runs; that is the client's current exposure.",
			"Check the usual causes: repository full or unreachable (NAS or cloud), expired credentials or keys, VSS writer errors on the source (vssadmin list writers), or the machine offline at backup time.",
			"Fix the cause, run the job manually and confirm it completes with a new restore point.",
			"If the gap exceeds the client's agreed recovery point objective, tell the client's contact and record it.",
			"Test-restore a few files (or boot the image in the vendor's virtualisation) to prove the backup is usable, not just reported successful.",
			"Check the off-site or immutable copy ran too; a single copy will not survive ransomware.",
			"Make repeated failures alert a technician, and note the root cause in the ticket.",
		},
		match: slices.Concat(
			strong("backup failed", "backup failure", "backup", "backup job", "backup error", "veeam", "datto", "acronis",
				"backup exec", "restore point"),
			medium("restore", "job failed", "snapshot", "retention", "replication",
				"vss"),
			weak("failed", "nas"),
		),
	},
	{
		Category: "slow_computer",
		Title:    "Slow computer",
		Priority: PriorityLow,
		Steps: []string{
			"Ask what is slow (everything, one application, start-up, or only browsing) and since when; a specific start date often points at an update or new software.",
			"Check uptime and restart if the machine has not rebooted in days; make sure pending Windows updates have finished installing.",
			"Use Task Manager/Resource Monitor (or the RMM's performance view) to find the process using CPU, memory or disk, and check free disk space.",
			"Review start-up apps and scheduled scans; disable unnecessary start-up items and keep full AV/EDR scans out of working hours.",
			"Check the hardware: drive SMART status (an old spinning disk at 100% is the usual culprit), RAM against the workload, and overheating from blocked fans.",
			"Run an EDR scan to rule out malware or cryptominers, and check the browser for heavy extensions.",
			"If the device is old or under-specified, recommend an SSD/RAM upgrade or replacement in the ticket, with its age and specification.",
		},
		match: slices.Concat(
			strong("slow computer", "slow laptop", "slow pc", "computer is slow",
				"computer is very slow", "laptop is slow", "laptop is very slow",
				"pc is slow", "pc is very slow", "sluggish", "freezing", "freezes",
				"takes forever", "not responding", "high cpu"),
			medium("slow", "slowly", "running slow", "very slow", "really slow",
				"so slow", "lag", "laggy", "hangs", "hanging", "frozen", "takes ages",
				"100 disk", "spinning wheel", "spinning circle"),
			weak("performance", "memory", "ram"),
		),
	},
	{
		Category: "network_outage",
		Title:    "Internet or network outage",
		Priority: PriorityMedium,
		Steps: []string{
			"Establish the scope: one user, one area, the whole office or several sites; wired, Wi-Fi or both.",
			"Check the RMM/monitoring for the site's firewall, switches and access points and the ISP's status page; if the line is down, raise a fault with the ISP and bring up any 4G/LTE failover.",
			"On an affected device run ipconfig /all, ping the default gateway, ping 1.1.1.1, then nslookup a domain, to tell a local-network fault from an internet or DNS fault.",
			"For a single device: check the cable and wall port or the Wi-Fi signal, forget and rejoin the network, renew DHCP and update the network driver.",
			"For Wi-Fi: check the access points' status and channel use, and whether the DHCP scope has run out of addresses.",
			"Restart the router, firewall or switch only after saving its logs, and record what was restarted and when.",
			"Confirm connectivity with the users and keep the client informed while an ISP fault is open.",
		},
		match: slices.Concat(
			strong("internet down", "internet is down", "no internet",
				"internet not working", "internet connection", "wifi", "wi-fi",
				"wireless", "network down", "network is down", "no network",
				"network outage", "outage", "lost connection", "no connection",
				"slow internet", "internet slow", "internet is slow",
				"internet is very slow", "internet is really slow", "slow wifi",
				"wifi is slow", "slow connection", "keeps disconnecting",
				"dropping out"),
			medium("internet", "network", "ethernet", "dns", "isp", "router",
				"broadband", "access point", "dhcp", "disconnecting", "dropping",
				"firewall"),
			weak("offline", "connection", "down", "signal"),
		),
	},
	{
		Category: "software_install",
		Title:    "Software install or licence request",
		Priority: PriorityLow,
		Steps: []string{
			"Get the exact product, version and business reason, and who at the client approves the cost if it is paid.",
			"Check the client's approved-software list and licensing: use a spare seat if there is one, otherwise quote a licence through the distributor.",
			"Check compatibility with the user's OS and hardware and whether it needs admin rights or conflicts with security policy.",
			"Deploy it through the RMM, Intune/Company Portal or winget rather than handing out admin credentials; never give the user a local admin password.",
			"Assign the licence to the user (Microsoft 365 admin center or vendor portal) and activate it with their work account.",
			"Confirm it launches and works for the user, and record the install and licence in the client's asset and licence register.",
		},
		match: slices.Concat(
			strong("install", "installed", "installing", "installation", "installer",
				"license", "licence", "licensed", "unlicensed", "activate",
				"activation", "product key", "software request", "need software",
				"new software", "admin rights", "administrator rights"),
			medium("software", "subscription", "upgrade", "adobe", "acrobat",
				"visio", "trial"),
			weak("application", "app", "program", "download"),
		),
	},
	{
		Category: "disk_space",
		Title:    "Low disk space",
		Priority: PriorityLow,
		Steps: []string{
			"Check which volume is full and by how much (RMM disk report or Settings → Storage); on a server, whether it is the system, data or log volume.",
			"Run a space analyser (WizTree or TreeSize) to see what is using the space instead of guessing.",
			"Clear the safe things: temp files, Windows Update leftovers (Disk Cleanup → system files), the recycle bin and old installers in Downloads.",
			"Move large user files to OneDrive/SharePoint with Files On-Demand, and check nothing is needlessly set to 'Always keep on this device'.",
			"On servers, look for runaway logs, old backups or shadow copies on the volume; set log rotation and move data to another volume.",
			"If the disk is simply too small, quote a larger SSD or extend the virtual disk.",
			"Set a low-disk-space alert (e.g. under 10% free) in the RMM so it is caught before it breaks anything again.",
		},
		match: slices.Concat(
			strong("disk space", "disk full", "disk is full", "low disk space",
				"out of space", "storage full", "storage is full", "drive full",
				"drive is full", "no space", "not enough space", "running out of space",
				"almost full", "nearly full", "free space", "low on space"),
			medium("space", "storage", "full", "gb free", "quota"),
			weak("disk"),
		),
	},
	{
		Category: "user_onboarding",
		Title:    "New starter setup",
		Priority: PriorityMedium,
		Steps: []string{
			"Get the request signed off by an authorised client contact: name, job title, department, manager, start date and whose access to mirror.",
			"Create the account (AD/Entra ID) with the client's naming convention, add the right security and distribution groups, and assign licences.",
			"Set up the mailbox, shared mailboxes, Teams/SharePoint access and the line-of-business application accounts the role needs.",
			"Prepare the device: Autopilot/Intune enrolment or image, standard apps, EDR, encryption and RMM agent; assign it to the user in the asset register.",
			"Plan the first sign-in: a Temporary Access Pass or temporary password given through the manager, and MFA registration on day one.",
			"Order phone, licences and peripherals with enough lead time for the start date.",
			"Check with the manager on the first day that everything works, and send the starter the IT welcome guide (how to raise tickets, security basics).",
		},
		match: slices.Concat(
			strong("new starter", "new hire", "new employee", "new user",
				"new staff", "new joiner", "onboarding", "onboard", "start date",
				"starting on monday", "create an account", "create account",
				"set up an account", "new account", "joining us"),
			medium("starting", "starts", "joiner", "joining", "set up", "setup",
				"first day"),
		),
	},
	{
		Category: "user_offboarding",
		Title:    "Leaver / account disable",
		Priority: PriorityMedium,
		Steps: []string{
			"Confirm the request with an authorised contact (HR or manager) and the exact date and time access must end; for a dismissal, cut access at the moment the person is told.",
			"Disable the account in AD/Entra ID, reset its password, revoke all sessions, and remove MFA methods and registered devices so access ends everywhere, phones included.",
			"Convert the mailbox to a shared mailbox (freeing the licence) or set forwarding and an auto-reply, and give the manager access as requested.",
			"Transfer OneDrive and file ownership to the manager, and remove the user from groups, VPN and third-party/SaaS apps (check the SSO application list).",
			"Recover company devices and wipe them (Intune wipe or Autopilot reset), update the asset register, and wipe company data from personal phones.",
			"Change shared secrets the person knew (Wi-Fi keys, shared accounts, door codes) and reclaim their licences.",
			"Log every action with timestamps in the ticket, and delete the account after the client's retention period.",
		},
		match: slices.Concat(
			strong("leaver", "leaving the company", "left the company", "offboarding",
				"offboard", "disable account", "disable the account",
				"disable their account", "disable his account", "disable her account",
				"last day", "resigned", "resignation", "remove access", "revoke access",
				"former employee", "ex employee"),
			medium("disable", "leaving", "left", "shared mailbox", "forward emails",
				"forward his emails", "forward her emails"),
		),
		criticalWhy: "access must be cut the moment a dismissal happens",
		critical: slices.Concat(
			strong("dismissed", "terminated"),
			medium("fired", "escorted out", "effective immediately", "disgruntled",
				"walked out"),
		),
	},
	{
		Category: "hardware_failure",
		Title:    "Hardware failure",
		Priority: PriorityMedium,
		Steps: []string{
			"Get the make, model and serial number or service tag, and the exact symptom: no power, no display, beep or LED codes, blue-screen stop code, physical damage.",
			"Try the basics with the user: a known-good charger and socket, a 30-second power-button hold with the charger out, undock and connect directly, and an external monitor to tell a screen fault from a system fault.",
			"For boot failures or blue screens, note the stop code, run the manufacturer's built-in diagnostics (Dell ePSA, HP F2, Lenovo Diagnostics) and check the drive's SMART status.",
			"If the drive may be failing, secure the user's data first (or confirm it is in OneDrive/backup) before further repair attempts.",
			"Check warranty on the vendor's site and log a warranty or accidental-damage claim with the diagnostic code, or quote a repair or replacement.",
			"Give the user a loan device, signed in and synced, so they can keep working.",
			"Once repaired or replaced, confirm BitLocker, EDR and RMM are healthy and update the asset register.",
		},
		match: slices.Concat(
			strong("won't boot", "will not boot", "doesn't boot", "does not boot",
				"won't turn on", "will not turn on", "doesn't turn on",
				"won't power on", "no power", "broken screen", "cracked screen",
				"screen cracked", "screen is cracked", "black screen", "blue screen",
				"bsod", "hardware", "dead laptop", "laptop is dead", "clicking noise",
				"beeping", "overheating", "spilled", "water damage"),
			medium("broken", "cracked", "dead", "screen", "monitor", "keyboard",
				"mouse", "docking station", "dock", "charger", "battery", "fan",
				"boot", "dropped", "damaged", "flickering"),
		),
	},
	{
		Category: generalCategory,
		Title:    "General support request",
		Priority: PriorityMedium,
		Steps: []string{
			"Contact the user for details: what they were trying to do, the exact error message (a screenshot helps), when it started and what changed just before.",
			"Establish the scope: only this user or others too, one device or several, and which application or service is involved.",
			"Reproduce the problem yourself, or watch the user do it over a remote session.",
			"Check the RMM, monitoring and recent changes (updates, new software, password changes) for the device or service involved.",
			"Re-categorise the ticket once the real problem is clear, so the right runbook and priority apply.",
			"Fix it or escalate to the right team, and confirm with the user that it is resolved before closing.",
		},
	},
}
