package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"garrison/store"

	"garrison/event"
	"garrison/timestamp"
	"garrison/valid"
)

// Ingest bounds.
const (
	maxBatch         = 10_000
	maxMessageLen    = 4096
	maxIndicatorLen  = 512
	maxSourceLen     = 100
	maxDetailsLen    = 16 << 10
	maxReportedField = 20
	// futureSkew is how far ahead of the server clock an event may claim to be.
	futureSkew = 24 * time.Hour
)

type eventInput struct {
	Type      string          `json:"type"`
	Severity  string          `json:"severity"`
	Timestamp string          `json:"timestamp"`
	Source    string          `json:"source"`
	Asset     string          `json:"asset"`
	Message   string          `json:"message"`
	Indicator string          `json:"indicator"`
	Details   json.RawMessage `json:"details"`
}

// decodeEvents reads one event or {"events":[…]} and validates every event;
// any problem refuses the whole request, naming each bad field.
func (a *API) decodeEvents(r *http.Request, defaultSource string) ([]store.NewEvent, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	return a.parseEvents(body, defaultSource)
}

func (a *API) parseEvents(body []byte, defaultSource string) ([]store.NewEvent, error) {
	if !utf8.Valid(body) {
		return nil, valid.Field("body", "is not valid UTF-8")
	}
	// One validating pass over the body; after it, the cheap byte walks of
	// eventscan.go can split and read it.
	if !json.Valid(body) {
		var v any
		return nil, decodeError(json.Unmarshal(body, &v))
	}
	raws, batch, err := splitEvents(body)
	if err != nil {
		return nil, err
	}
	prefix := func(int) string { return "" }
	if batch {
		if len(raws) == 0 || len(raws) > maxBatch {
			return nil, valid.Field("events", fmt.Sprintf("must hold 1 to %d events (got %d)", maxBatch, len(raws)))
		}
		prefix = func(i int) string { return fmt.Sprintf("events[%d].", i) }
	}
	var p valid.Problems
	out := make([]store.NewEvent, 0, len(raws))
	now := a.Now()
	for i, raw := range raws {
		if p.Full() {
			break
		}
		in, err := scanEvent(raw, prefix(i))
		if err != nil {
			return nil, err
		}
		if e, ok := validEvent(&p, prefix(i), in, defaultSource, now); ok {
			out = append(out, e)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// splitEvents takes a valid JSON body apart: {"events":[…]} gives each
// element (batch true); any other object is one event.
func splitEvents(body []byte) (raws [][]byte, batch bool, err error) {
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return nil, false, valid.Field("body", "must be a JSON object")
	}
	var events []byte
	var others []string
	for i++; ; {
		i = skipSpace(body, i)
		if body[i] == '}' {
			break
		}
		if body[i] == ',' {
			i++
			continue
		}
		keyEnd := skipValue(body, i)
		key := jsonString(body[i:keyEnd])
		i = skipSpace(body, skipSpace(body, keyEnd)+1) // past the colon
		end := skipValue(body, i)
		if key == "events" {
			events = body[i:end] // the last one wins, as in encoding/json
		} else {
			others = append(others, key)
		}
		i = end
	}
	if events == nil {
		return [][]byte{body}, false, nil
	}
	if len(others) > 0 {
		return nil, true, valid.Field(others[0], "is not a known field beside events")
	}
	if events[0] != '[' {
		return nil, true, valid.Field("events", "must be an array of event objects")
	}
	for j := 1; ; {
		j = skipSpace(events, j)
		switch events[j] {
		case ']':
			return raws, true, nil
		case ',':
			j++
			continue
		}
		end := skipValue(events, j)
		raws = append(raws, events[j:end])
		j = end
	}
}

func validEvent(p *valid.Problems, prefix string, in eventInput, defaultSource string, now time.Time) (store.NewEvent, bool) {
	before := p.Len()
	sev, sevOK := event.ParseSeverity(in.Severity)
	p.Check(slices.Contains(event.Types, in.Type), prefix+"type", "must be one of "+strings.Join(event.Types, ", "))
	p.Check(sevOK, prefix+"severity", "must be one of "+strings.Join(event.SeverityNames(), ", "))
	ts, err := time.Parse(time.RFC3339Nano, in.Timestamp)
	if err != nil {
		p.Add(prefix+"timestamp", "must be an RFC 3339 timestamp")
	} else if problem := timestampProblem(ts, now); problem != "" {
		p.Add(prefix+"timestamp", problem)
	}
	if in.Source == "" {
		in.Source = defaultSource
	}
	p.Check(valid.Label(in.Source, maxSourceLen), prefix+"source", "must be 1 to 100 printable characters")
	p.Check(valid.Host(in.Asset), prefix+"asset", "must be a host name or an IP address")
	p.Check(in.Message != "" && len(in.Message) <= maxMessageLen && utf8.ValidString(in.Message), prefix+"message", "must be 1 to 4096 bytes of text")
	p.Check(len(in.Indicator) <= maxIndicatorLen, prefix+"indicator", "must be at most 512 bytes")
	var details []byte
	if d := bytes.TrimSpace(in.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		p.Check(d[0] == '{' && len(d) <= maxDetailsLen, prefix+"details", "must be a JSON object of at most 16 KiB")
		details = d
	}
	if p.Len() > before {
		return store.NewEvent{}, false
	}
	return store.NewEvent{Type: in.Type, Severity: sev, Timestamp: ts.UTC(), Source: in.Source, Asset: strings.ToLower(in.Asset),
		Message: in.Message, Indicator: in.Indicator, Details: details}, true
}

// timestampProblem says why an event time is not believable, or "".
func timestampProblem(ts, now time.Time) string {
	switch {
	case ts.After(now.Add(futureSkew)):
		return "is more than a day in the future"
	case ts.Year() < 2000:
		return "is before the year 2000"
	}
	return ""
}

type ingestView struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
}

func (a *API) ingestEvents(w http.ResponseWriter, r *http.Request) error {
	events, err := a.decodeEvents(r, "")
	if err != nil {
		return err
	}
	ids, err := a.Store.Ingest(r.Context(), principalFrom(r.Context()).OrgID, events, nil)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, ingestView{Count: len(ids), IDs: ids})
	return nil
}

type eventView struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Severity   string          `json:"severity"`
	Timestamp  string          `json:"timestamp"`
	Source     string          `json:"source"`
	Asset      string          `json:"asset"`
	Message    string          `json:"message"`
	Indicator  *string         `json:"indicator"`
	Details    json.RawMessage `json:"details"`
	AlertID    *string         `json:"alert_id"`
	ReceivedAt string          `json:"received_at"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newEventView(e store.Event) eventView {
	details := json.RawMessage(e.Details)
	if details == nil {
		details = json.RawMessage("null")
	}
	return eventView{ID: e.ID, Type: e.Type, Severity: e.Severity.String(), Timestamp: timestamp.Format(e.Timestamp),
		Source: e.Source, Asset: e.Asset, Message: e.Message, Indicator: optString(e.Indicator), Details: details,
		AlertID: optString(e.AlertID), ReceivedAt: timestamp.Format(e.ReceivedAt)}
}

// parseSeverities reads a comma list of severity names.
func parseSeverities(p *valid.Problems, v string) []event.Severity {
	if v == "" {
		return nil
	}
	var out []event.Severity
	for _, name := range strings.Split(v, ",") {
		i, ok := event.ParseSeverity(strings.TrimSpace(name))
		if !ok {
			p.Add("severity", "must be a comma list of "+strings.Join(event.SeverityNames(), ", "))
			return nil
		}
		out = append(out, i)
	}
	return out
}

func parseTime(p *valid.Problems, field, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		p.Add(field, "must be an RFC 3339 timestamp")
		return nil
	}
	return &t
}

func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var p valid.Problems
	f := store.EventFilter{Page: page, Severities: parseSeverities(&p, q.Get("severity"))}
	if v := q.Get("type"); v != "" {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(event.Types, t) {
				p.Add("type", "must be a comma list of "+strings.Join(event.Types, ", "))
				break
			}
			f.Types = append(f.Types, t)
		}
	}
	f.From, f.To = parseTime(&p, "from", q.Get("from")), parseTime(&p, "to", q.Get("to"))
	if f.To != nil && f.To.Nanosecond() == 0 {
		// Times are shown to the second: "to" given in whole seconds covers that second.
		end := f.To.Add(time.Second - time.Millisecond)
		f.To = &end
	}
	if f.From != nil && f.To != nil && f.From.After(*f.To) {
		p.Add("from", "must not be after to")
	}
	switch q.Get("sort") {
	case "", "timestamp":
	case "severity":
		f.SortBySeverity = true
	default:
		p.Add("sort", "must be timestamp or severity")
	}
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		p.Add("order", "must be asc or desc")
	}
	if err := p.Err(); err != nil {
		return err
	}
	events, total, err := a.Store.Events(r.Context(), principalFrom(r.Context()).OrgID, f)
	if err != nil {
		return err
	}
	views := make([]eventView, len(events))
	for i, e := range events {
		views[i] = newEventView(e)
	}
	writeList(w, views, total, page)
	return nil
}
