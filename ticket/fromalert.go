package ticket

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"garrison/actor"
	"garrison/fault"
)

// AlertFacts are what a ticket opened from an alert says of it.
type AlertFacts struct {
	ID, Title, Severity, Category, Asset, Indicator, Action string
	Events                                                  int
	FirstSeen                                               time.Time
	TicketID                                                string // the alert's ticket already, "" when none
}

// AlertPriority is the priority of an alert's ticket: high for a critical
// or high alert, medium for a medium one, low otherwise.
func AlertPriority(severity string) string {
	switch severity {
	case "critical", "high":
		return "high"
	case "medium":
		return "medium"
	}
	return "low"
}

// SubmitForAlert opens the ticket of an alert, linked both ways, through
// the same path as any ticket (its triage run spent from the budget). An
// alert with a ticket already is a conflict naming it.
func SubmitForAlert(ctx context.Context, st Store, q Queue, who actor.Actor, a AlertFacts, triageAgent string, spend func() error) (Ticket, error) {
	if a.TicketID != "" {
		return Ticket{}, &fault.Error{Code: fault.Conflict, Message: "This alert has a ticket already", ExistingID: a.TicketID}
	}
	subject := fmt.Sprintf("[%s] %s on %s", strings.ToUpper(a.Severity), a.Title, a.Asset)
	for utf8.RuneCountInString(subject) > MaxSubject {
		_, size := utf8.DecodeLastRuneInString(subject)
		subject = subject[:len(subject)-size]
	}
	var d strings.Builder
	fmt.Fprintf(&d, "Opened from alert %s.\n\nAlert: %s\nSeverity: %s\nCategory: %s\nAsset: %s\n", a.ID, a.Title, a.Severity, a.Category, a.Asset)
	if a.Indicator != "" {
		fmt.Fprintf(&d, "Indicator: %s\n", a.Indicator)
	}
	fmt.Fprintf(&d, "Events: %d since %s\n", a.Events, a.FirstSeen.UTC().Format(time.RFC3339))
	if a.Action != "" {
		fmt.Fprintf(&d, "\nRecommended first step: %s\n", a.Action)
	}
	if err := spend(); err != nil {
		return Ticket{}, err
	}
	t, err := st.SubmitTicket(ctx, New{OrgID: who.OrgID, CreatedBy: who.ID, Subject: strings.TrimSpace(subject), Description: d.String(),
		Priority: AlertPriority(a.Severity), AlertID: a.ID}, triageAgent)
	if err != nil {
		return t, err
	}
	q.Notify()
	return t, nil
}
