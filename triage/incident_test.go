package triage

import "testing"

func TestIncident(t *testing.T) {
	for _, tc := range []struct {
		subject, description string
		want                 string
	}{
		{"Files encrypted", "Ransom note on the desktop.", IncidentRansomware},
		{"Phishing - I clicked the link", "I clicked the link in an email about a shared invoice and entered my password before I realised.", IncidentPhishing},
		{"Suspicious email from 'DocuSign'", "The sender address looks wrong. I haven't clicked anything. Is this phishing?", ""},
		{"Someone logged into my account", "I got sign-in alerts from Russia and my mailbox has rules I did not create; my account is compromised.", IncidentAccount},
		{"Laptop was stolen from my car", "It had the client list on it.", IncidentDataLoss},
		{"Printer jammed", "The second floor printer shows paper jam.", ""},
	} {
		r := Classify(tc.subject, tc.description)
		got, ok := Incident(r, tc.subject, tc.description)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%q (%s, %s): %q %v, want %q", tc.subject, r.Category, r.Priority, got, ok, tc.want)
		}
		if ok && RequesterAdvice(got) == "" {
			t.Errorf("%s: no advice for the requester", got)
		}
	}
}
