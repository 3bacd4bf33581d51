package triage

import "strings"

// Kinds of security incident a ticket may report.
const (
	IncidentRansomware = "ransomware"
	IncidentAccount    = "account compromise"
	IncidentPhishing   = "phishing with credentials entered"
	IncidentDataLoss   = "data loss"
)

// dataLoss are phrases of a report that data left the organization.
var dataLoss = []string{"data breach", "data leak", "leaked", "exfiltrat", "stolen laptop", "laptop was stolen", "lost laptop",
	"lost my laptop", "sent to the wrong", "emailed to the wrong", "customer data was", "patient data was", "data was stolen"}

// Incident says whether a triaged ticket reports a security incident that
// goes to a technician at once, whatever the triage's confidence:
// ransomware, a compromised account, a phishing mail someone gave
// credentials to or opened (a critical phrase made it high), or data
// loss.
func Incident(r Result, subject, description string) (string, bool) {
	switch {
	case r.Category == "ransomware":
		return IncidentRansomware, true
	case r.Category == "account_compromise":
		return IncidentAccount, true
	case r.Category == "phishing_report" && r.Priority == PriorityHigh:
		return IncidentPhishing, true
	}
	text := strings.ToLower(subject + "\n" + description)
	for _, p := range dataLoss {
		if strings.Contains(text, p) {
			return IncidentDataLoss, true
		}
	}
	return "", false
}

// RequesterAdvice is what the person who reported an incident should do
// now, in their words; the technician's runbook is the ticket's
// resolution steps, never sent to them.
func RequesterAdvice(kind string) string {
	switch kind {
	case IncidentRansomware:
		return "Disconnect the computer from the network now (unplug the cable and turn off Wi-Fi) but leave it switched on, " +
			"do not open any more files, and do not contact the attackers or pay anything."
	case IncidentAccount, IncidentPhishing:
		return "Do not use the account until a technician contacts you; if you can, change its password from another, trusted " +
			"device, and tell us anything you approved or entered."
	case IncidentDataLoss:
		return "Do not delete or forward anything related to it, and write down what was sent or lost, to whom and when."
	}
	return ""
}
