package contact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Endpoint is one contact point as the sender needs it.
type Endpoint struct {
	Kind       string
	URL        string // webhook, slack, teams; for pagerduty the Events API base ("" = https://events.pagerduty.com/v2/enqueue)
	Secret     string // webhook: "whsec_" + base64 secret (Standard Webhooks); unused otherwise
	RoutingKey string // pagerduty: the integration's 32-char routing key
}

// errEmail is the answer for the one kind this package does not deliver.
var errEmail = errors.New("email is delivered by the mailer")

// maxBody is the largest request each receiver takes: PagerDuty's 512 KB,
// Teams' 28 KB for a message; the webhook and Slack get what a chat or
// SIEM comfortably takes.
var maxBody = map[string]int{Webhook: 256 << 10, Slack: 128 << 10, Teams: 28 << 10, PagerDuty: 512 << 10}

// Payload builds the request one message makes: its JSON body and headers
// (Content-Type, and for webhooks webhook-id / webhook-timestamp /
// webhook-signature, signed at now). A group over the receiver's size
// limit lists fewer alerts; its count still says how many it stands for.
func Payload(ep Endpoint, m Message, now time.Time) (body []byte, header http.Header, err error) {
	if ep.Kind == Email {
		return nil, nil, errEmail
	}
	if _, ok := webhookTypes[m.Event]; !ok {
		return nil, nil, fmt.Errorf("unknown event %q", m.Event)
	}
	m.Count = m.count()
	for {
		if body, err = encode(ep, m, now); err != nil {
			return nil, nil, err
		}
		if len(body) <= maxBody[ep.Kind] || len(m.Alerts) <= 1 {
			break // a single alert, its fields bounded, goes as it is
		}
		m.Alerts = m.Alerts[:len(m.Alerts)/2]
	}
	header = http.Header{"Content-Type": {"application/json"}}
	if ep.Kind == Webhook {
		if m.ID == "" {
			return nil, nil, errors.New("webhook message has no id")
		}
		sig, err := Sign(ep.Secret, m.ID, now, body)
		if err != nil {
			return nil, nil, fmt.Errorf("sign webhook: %w", err)
		}
		header.Set(headerID, m.ID)
		header.Set(headerTimestamp, strconv.FormatInt(now.Unix(), 10))
		header.Set(headerSignature, sig)
	}
	return body, header, nil
}

// encode is the JSON body of a message for one kind. HTML stays unescaped:
// no receiver renders the body as HTML, and "&lt;" meant for Slack would
// otherwise travel as "\u0026lt;".
func encode(ep Endpoint, m Message, now time.Time) ([]byte, error) {
	var v any
	var err error
	switch ep.Kind {
	case Webhook:
		v, err = webhookBody(m, now)
	case Slack:
		v = slackBody(m)
	case Teams:
		v = teamsBody(m)
	case PagerDuty:
		v, err = pagerDutyBody(ep, m, now)
	default:
		return nil, fmt.Errorf("unknown contact point kind %q", ep.Kind)
	}
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", ep.Kind, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
