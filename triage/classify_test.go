package triage

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

type ticket struct {
	subject, description string
}

// realistic holds tickets as clients write them, at least two per category,
// each of which must be categorised confidently.
var realistic = map[string][]ticket{
	"account_lockout": {
		{"Locked out of my account", "I tried my password a few times this morning and now Windows says my account is locked. Can you unlock it please?"},
		{"Account keeps getting locked", "Every morning my account is locked again even though I haven't typed the wrong password. It started after I changed my password last week."},
		{"can't log in", "It says the referenced account is currently locked out and may not be logged on to."},
	},
	"password_reset": {
		{"Password expired", "When I log in it says my password has expired and I don't remember the old one to change it."},
		{"Forgot my password", "Hi, I forgot my password after the holidays, could you reset it for me?"},
		{"Password reset please", "I need a new password for my Microsoft 365 account, I can't remember it."},
	},
	"mfa": {
		{"New phone - authenticator", "I got a new phone and the Microsoft Authenticator app doesn't have my work account any more so I can't approve the sign in."},
		{"2FA code not accepted", "The verification code from my phone is always rejected when I try to sign in to Outlook."},
		{"Getting MFA prompts", "I keep getting approve sign-in notifications on my phone that I didn't request, about ten today."},
	},
	"phishing_report": {
		{"Suspicious email from 'DocuSign'", "I received an email asking me to review a document, the sender address looks wrong. I haven't clicked anything. Is this phishing?"},
		{"Is this a scam?", "Got an email from our MD asking me to buy gift cards urgently and send the codes. It seems like someone is pretending to be him."},
		{"Phishing - I clicked the link", "I clicked the link in an email about a shared invoice and entered my password before I realised."},
		{"Email from CEO asking for wire transfer", "Urgent request to pay a new supplier today, but it came from an external gmail address."},
	},
	"account_compromise": {
		{"My account has been hacked", "People are getting emails from me that I didn't send, asking them to pay an invoice."},
		{"Unusual sign-in activity", "I got a Microsoft alert about an unusual sign-in from Nigeria on my account, it wasn't me."},
	},
	"malware_alert": {
		{"Virus warning on my laptop", "Windows Defender popped up saying a threat was detected and quarantined: Trojan:Win32/Wacatac."},
		{"Lots of pop-ups", "My browser keeps opening pop ups and redirects me to strange sites, I think I have a virus."},
		{"SentinelOne alert", "Got an alert that malware was found on my PC when I opened a download."},
	},
	"ransomware": {
		{"All my files have weird extensions", "None of my documents open, they all end in .lockbit now and there's a text file saying my files are encrypted and I have to pay in bitcoin."},
		{"Ransom note on screen", "A message appeared saying our files have been encrypted and to contact them to decrypt. The shared drive files won't open either."},
	},
	"vpn": {
		{"VPN not connecting", "Working from home today and FortiClient says the connection failed at 98%."},
		{"Can't connect to the office from home", "GlobalProtect keeps saying gateway not responding, so I can't get to the shared drives."},
	},
	"email_delivery": {
		{"Emails bouncing back", "Every email I send to our supplier comes back as undeliverable with 550 5.7.1."},
		{"Not receiving emails", "Customers say they sent me emails yesterday but nothing arrived in my inbox, not even in junk."},
		{"Our emails go to spam", "Clients tell us our messages are going to their spam folder since last week."},
	},
	"printer": {
		{"Printer not working", "The printer on the second floor shows paper jam but there's no paper stuck anywhere."},
		{"Can't print", "When I print a PDF nothing comes out; the print queue says error."},
		{"Scanner", "Scan to email on the copier stopped working, it says SMTP error."},
	},
	"backup_failure": {
		{"Backup failed alert", "We got an email from Veeam saying last night's backup job failed for the file server."},
		{"Backups not running", "The Datto console shows no successful backup for 3 days on SERVER01."},
	},
	"slow_computer": {
		{"Computer is very slow", "My PC takes forever to start and Excel keeps freezing and not responding."},
		{"Laptop running slow", "Everything is sluggish since the last update, opening a file takes ages."},
	},
	"network_outage": {
		{"No internet", "Nobody on the ground floor has internet since 9am, the Wi-Fi shows connected but no internet."},
		{"WiFi keeps dropping", "The wireless in the meeting room keeps disconnecting every few minutes."},
	},
	"software_install": {
		{"Install Adobe Acrobat", "Could you please install Adobe Acrobat Pro on my laptop? My manager approved the licence."},
		{"Need Visio licence", "I need Visio for a project, can I get a license and have it installed?"},
	},
	"disk_space": {
		{"Disk full", "Windows says low disk space on C: and I can't save anything."},
		{"Running out of space", "My laptop says storage is full, only 200 MB free space left."},
	},
	"user_onboarding": {
		{"New starter Monday", "We have a new starter, Jane Smith, starting on Monday in accounts. Please set up an account and laptop, same access as John."},
		{"New hire setup", "Please create an account and e-mail for our new employee who joins on the 3rd as a sales manager."},
	},
	"user_offboarding": {
		{"Leaver - Tom Brown", "Tom's last day is Friday. Please disable his account after 5pm and forward his emails to his manager."},
		{"Employee left the company", "Sarah resigned and left the company yesterday, please remove access to everything and convert her mailbox to a shared mailbox."},
	},
	"hardware_failure": {
		{"Laptop won't turn on", "My laptop won't turn on at all, no lights even when charging."},
		{"Cracked screen", "I dropped my laptop and now the screen is cracked and flickering."},
		{"Blue screen", "My PC shows a blue screen with CRITICAL_PROCESS_DIED and restarts."},
	},
}

func TestRealisticTickets(t *testing.T) {
	for _, a := range KnowledgeBase() {
		if a.Category == generalCategory {
			continue
		}
		if len(realistic[a.Category]) < 2 {
			t.Errorf("%s: need at least two realistic tickets, have %d", a.Category, len(realistic[a.Category]))
		}
	}
	for want, tickets := range realistic {
		for _, tk := range tickets {
			r := Classify(tk.subject, tk.description)
			if r.Category != want || r.Confidence < EscalateBelow {
				t.Errorf("Classify(%q, %q) = %s %.2f, want %s ≥ %.2f\nreasons: %s",
					tk.subject, tk.description, r.Category, r.Confidence, want, EscalateBelow,
					strings.Join(r.Reasons, "\n  "))
			}
			if len(r.Evidence) == 0 {
				t.Errorf("Classify(%q): no evidence", tk.subject)
			}
		}
	}
}

func TestVagueTicketsAreGeneral(t *testing.T) {
	for _, tk := range []ticket{
		{"it doesn't work", ""},
		{"help", ""},
		{"", ""},
		{"Problem", "Something is wrong, please call me."},
		{"Question", "Can someone give me a ring when free? Thanks"},
		{"!!!", "¿?¿? 🙃"},
	} {
		r := Classify(tk.subject, tk.description)
		if r.Category != generalCategory || r.Confidence >= EscalateBelow || r.Confidence > 0.3 {
			t.Errorf("Classify(%q, %q) = %s %.2f, want general ≤ 0.30", tk.subject, tk.description, r.Category, r.Confidence)
		}
		if len(r.Steps) < 5 || len(r.Reasons) == 0 {
			t.Errorf("Classify(%q): general result lacks steps or reasons: %+v", tk.subject, r)
		}
	}
}

func TestWeakHintIsGeneral(t *testing.T) {
	r := Classify("Question", "Is Outlook on the web different from the desktop version?")
	if r.Category != generalCategory || r.Confidence > 0.3 {
		t.Fatalf("got %s %.2f, want general ≤ 0.30", r.Category, r.Confidence)
	}
	if !strings.Contains(strings.Join(r.Reasons, " "), "weak hint") {
		t.Errorf("reasons do not mention the weak hint: %q", r.Reasons)
	}
}

func TestAmbiguousTicketsEscalate(t *testing.T) {
	for _, tk := range []ticket{
		{"Printer and VPN broken", "The printer won't print and the VPN won't connect."},
		{"Two problems", "My account is locked out. Also I got a new phone and the authenticator app is empty."},
		{"", "Can't print anything and my laptop is very slow."},
	} {
		r := Classify(tk.subject, tk.description)
		if r.Confidence >= EscalateBelow {
			t.Errorf("Classify(%q, %q) = %s %.2f, want below %.2f\nreasons: %s",
				tk.subject, tk.description, r.Category, r.Confidence, EscalateBelow, strings.Join(r.Reasons, "\n  "))
		}
	}
}

func TestWholeWordMatching(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"print", true},
		{"Print", true},
		{"PRINT!", true},
		{"(print)", true},
		{"blueprint", false},
		{"reprint", false},
		{"printable", false},
		{"fingerprint reader", false},
	}
	for _, tt := range tests {
		toks := tokenize(tt.text)
		got := slices.Contains(toks, "print")
		if got != tt.want {
			t.Errorf("tokenize(%q) = %q: contains print = %v, want %v", tt.text, toks, got, tt.want)
		}
	}
	r := Classify("Blueprint", "The blueprint for the new office is attached.")
	if r.Category == "printer" {
		t.Errorf("blueprint classified as printer: %+v", r)
	}
	r = Classify("Vpn", "")
	if r.Category != "vpn" {
		t.Errorf("Vpn classified as %s", r.Category)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Can't print", []string{"cant", "print"}},
		{"I cannot PRINT", []string{"i", "cant", "print"}},
		{"won’t boot", []string{"wont", "boot"}},
		{"Wi-Fi e-mail", []string{"wi", "fi", "e", "mail"}},
		{"Printers & scanners", []string{"printer", "scanner"}},
		{"virus access analysis", []string{"virus", "access", "analysis"}},
		{"ÉCRAN cassé", []string{"écran", "cassé"}},
		{"Ärger\xffmit", []string{"ärger", "mit"}},
		{"'quoted' users'", []string{"quoted", "user"}},
		{"2FA/MFA", []string{"2fa", "mfa"}},
		{"CRITICAL_PROCESS_DIED", []string{"critical_process_died"}},
		{"canʼt", []string{"cant"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPhrasesDoNotSpanFields(t *testing.T) {
	// "locked out" split across subject and description is not the phrase.
	r := Classify("Locked", "out")
	if slices.Contains(r.Evidence, "locked out") {
		t.Errorf("phrase matched across fields: %+v", r)
	}
}

func TestTypographicApostrophe(t *testing.T) {
	for _, s := range []string{"Can’t print", "Can't print", "Cannot print", "CANʼT PRINT"} {
		r := Classify(s, "")
		if r.Category != "printer" || !slices.Contains(r.Evidence, "can't print") {
			t.Errorf("Classify(%q) = %s %q, want printer via \"can't print\"", s, r.Category, r.Evidence)
		}
	}
}

func TestSubjectOutweighsDescription(t *testing.T) {
	// Same two phrases; only their places are swapped.
	r := Classify("Printer", "Also the VPN")
	if r.Category != "printer" {
		t.Errorf("subject printer: got %s", r.Category)
	}
	r = Classify("VPN", "Also the printer")
	if r.Category != "vpn" {
		t.Errorf("subject VPN: got %s", r.Category)
	}
	inSubject := Classify("Locked out", "")
	inBody := Classify("", "Locked out")
	if inSubject.Confidence <= inBody.Confidence {
		t.Errorf("subject confidence %.2f not above description confidence %.2f", inSubject.Confidence, inBody.Confidence)
	}
}

func TestUrgencyRaisesPriority(t *testing.T) {
	base := Classify("Printer jammed", "The printer on floor 2 has a paper jam.")
	if base.Priority != PriorityLow {
		t.Fatalf("base printer priority %s, want low", base.Priority)
	}
	tests := []struct {
		ticket
		want, signal string
	}{
		{ticket{"URGENT printer jammed", "The printer on floor 2 has a paper jam."}, PriorityMedium, "urgent"},
		{ticket{"Printer jammed", "Paper jam and the CEO needs his board pack printed ASAP."}, PriorityMedium, "ceo"},
		{ticket{"No internet", "The entire office has no internet."}, PriorityHigh, "entire office"},
		{ticket{"VPN down", "Nobody can connect to the VPN and we cannot work."}, PriorityHigh, "nobody can"},
	}
	for _, tt := range tests {
		r := Classify(tt.subject, tt.description)
		if r.Priority != tt.want {
			t.Errorf("Classify(%q) priority %s, want %s\nreasons: %q", tt.subject, r.Priority, tt.want, r.Reasons)
		}
		joined := strings.Join(r.Reasons, "\n")
		if !strings.Contains(joined, "raised") || !strings.Contains(joined, tt.signal) {
			t.Errorf("Classify(%q): no reason naming urgency signal %q: %q", tt.subject, tt.signal, r.Reasons)
		}
	}
}

func TestStopCodeIsNotUrgency(t *testing.T) {
	r := Classify("Blue screen", "My PC shows a blue screen with CRITICAL_PROCESS_DIED and restarts.")
	if r.Category != "hardware_failure" || r.Priority != PriorityMedium {
		t.Errorf("got %s %s, want hardware_failure medium: %q", r.Category, r.Priority, r.Reasons)
	}
}

func TestCriticalPhrasesForceHigh(t *testing.T) {
	calm := Classify("Suspicious email", "Got an odd email from a sender I don't know. I did not open it.")
	if calm.Category != "phishing_report" || calm.Priority != PriorityMedium {
		t.Fatalf("calm phishing report: %s %s", calm.Category, calm.Priority)
	}
	for _, tk := range []ticket{
		{"Suspicious email", "I clicked the link and entered my password, then the page went blank."},
		{"MFA prompts", "My authenticator keeps asking me to approve sign-ins I didn't request."},
		{"Leaver", "John was dismissed this morning, please disable his account now."},
	} {
		r := Classify(tk.subject, tk.description)
		if r.Priority != PriorityHigh {
			t.Errorf("Classify(%q, %q) priority %s, want high: %q", tk.subject, tk.description, r.Priority, r.Reasons)
		}
	}
}

func TestSecurityIncidentsAreHigh(t *testing.T) {
	for _, tk := range append(realistic["ransomware"], realistic["malware_alert"]...) {
		r := Classify(tk.subject, tk.description)
		if r.Priority != PriorityHigh {
			t.Errorf("Classify(%q) = %s priority %s, want high", tk.subject, r.Category, r.Priority)
		}
	}
	r := Classify("Files encrypted", "Ransom note on the desktop.")
	if r.Category != "ransomware" || r.Priority != PriorityHigh {
		t.Fatalf("got %s %s", r.Category, r.Priority)
	}
	if first := strings.ToLower(r.Steps[0]); !strings.Contains(first, "isolate") {
		t.Errorf("first ransomware step does not isolate the machine: %q", r.Steps[0])
	}
}

func TestDeterministic(t *testing.T) {
	for _, tickets := range realistic {
		for _, tk := range tickets {
			a := Classify(tk.subject, tk.description)
			b := Classify(tk.subject, tk.description)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("Classify(%q) differs between runs:\n%+v\n%+v", tk.subject, a, b)
			}
		}
	}
}

func TestResultIsACopy(t *testing.T) {
	r := Classify("Printer", "")
	r.Steps[0] = "changed"
	if Classify("Printer", "").Steps[0] == "changed" {
		t.Error("Classify returned the knowledge base's own Steps slice")
	}
	kbs := KnowledgeBase()
	kbs[0].Steps[0] = "changed"
	if KnowledgeBase()[0].Steps[0] == "changed" {
		t.Error("KnowledgeBase returned its own Steps slice")
	}
}

func TestConfidenceFormula(t *testing.T) {
	if got := confidence(0, 0); got != 0 {
		t.Errorf("confidence(0, 0) = %v", got)
	}
	// A tie is never confident, however strong.
	for _, s := range []float64{2, 6, 30, 1000} {
		if got := confidence(s, s); got >= 0.5 {
			t.Errorf("confidence(%v, %v) = %v, want < 0.5", s, s, got)
		}
		if got := confidence(s, 0.8*s); got >= EscalateBelow {
			t.Errorf("confidence(%v, %v) = %v, want < %v", s, 0.8*s, got, EscalateBelow)
		}
	}
	if got := confidence(1e9, 0); got != maxConfidence {
		t.Errorf("confidence(1e9, 0) = %v, want %v", got, maxConfidence)
	}
	// Rounding must not lift a near tie to the threshold either.
	if got := round2(confidence(1e9, 0.8e9)); got >= EscalateBelow {
		t.Errorf("round2(confidence(1e9, 0.8e9)) = %v, want < %v", got, EscalateBelow)
	}
}

func TestLongInput(t *testing.T) {
	desc := strings.Repeat("The printer is jammed again. ", 10000/29+1)[:10000]
	r := Classify(strings.Repeat("x", 10000), desc)
	if r.Category != "printer" {
		t.Errorf("long ticket: got %s", r.Category)
	}
}

func BenchmarkClassify(b *testing.B) {
	subject := "Account keeps getting locked"
	description := "Every morning my account is locked again even though I haven't typed the wrong password. " +
		"It started after I changed my password last week. I use Outlook on my phone and the VPN from home."
	b.ReportAllocs()
	for b.Loop() {
		Classify(subject, description)
	}
}

func BenchmarkClassifyLong(b *testing.B) {
	description := strings.Repeat("When I try to print the spooler crashes and Outlook is slow. ", 10000/61+1)[:10000]
	b.ReportAllocs()
	for b.Loop() {
		Classify("Printer problem", description)
	}
}
