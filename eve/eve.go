package eve

import (
	"errors"
	"fmt"
	"time"

	"garrison/event"
	"garrison/valid"
)

// MaxRecords caps the records (non-blank lines or array elements) one call
// accepts, so a single webhook body cannot turn into unbounded work.
const MaxRecords = 10000

// ErrTooManyRecords is the cause of the error for the first record past
// MaxRecords.
var ErrTooManyRecords = fmt.Errorf("too many records: at most %d per request", MaxRecords)

// Event is one Garrison security event derived from an EVE record.
type Event struct {
	Type      string
	Severity  event.Severity
	Timestamp time.Time      // UTC
	Asset     string         // the protected host, see the package doc
	Message   string         // one line, human readable
	Indicator string         // signature text, domain or IP that identifies the threat
	Details   map[string]any // selected EVE fields, JSON scalars kept as int64/float64/string/bool
	Line      int            // the record's line (or element) in the payload
	// Target is set on an exploit attempt from outside whose severity the
	// table capped because its target is not known to run what it
	// targets: whoever knows the inventory may lift the cap (Target).
	Target *Target
}

// DNSQuery is one DNS lookup seen by the sensor.
type DNSQuery struct {
	Timestamp time.Time // UTC
	Client    string    // IP that asked
	Domain    string    // lower case, no trailing dot
	QType     string    // A, AAAA, ...
	RCode     string    // NOERROR, NXDOMAIN, ... ("" when no response was seen)
	Line      int       // the request's line (or element) in the payload
}

// Result is everything Garrison keeps from one EVE payload.
type Result struct {
	Events  []Event
	DNS     []DNSQuery
	Skipped int // records Garrison does not use (http, tls, flow without a block, stats, ...)
}

// lineError is the first bad record: line is the 1-based line of a
// JSON-lines payload or the 1-based element index of a JSON array.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

func (e *lineError) Unwrap() error { return e.err }

// refusal is the valid.Error of a bad record: the field is "line N", the
// cause the parser's error.
func refusal(err error) error {
	var le *lineError
	if !errors.As(err, &le) {
		le = &lineError{line: 1, err: err}
	}
	return &valid.Error{Problems: []valid.Problem{{Field: fmt.Sprintf("line %d", le.line),
		Message: "is not a usable EVE record: " + le.err.Error()}}, Cause: le.err}
}

// Parse turns a Suricata EVE payload (JSON lines or a JSON array of objects)
// into Garrison events and DNS telemetry. It is all or nothing: on error the
// Result is empty and the error is a *valid.Error naming the record's line.
func Parse(data []byte) (Result, error) {
	var p parser
	err := eachRecord(data, func(line int, r record) error {
		if err := p.add(line, r); err != nil {
			return &lineError{line: line, err: err}
		}
		return nil
	})
	if err != nil {
		return Result{}, refusal(err)
	}
	return p.result(), nil
}

// Problem is a record ParsePartial could not use.
type Problem struct {
	Line   int
	Reason string
}

// ParsePartial is Parse keeping what it can: each bad record is a Problem
// naming its line, and the others are used. Only a JSON array broken
// mid-way ends the payload there.
func ParsePartial(data []byte) (Result, []Problem) {
	var p parser
	var problems []Problem
	bad := func(line int, err error) {
		problems = append(problems, Problem{Line: line, Reason: "is not a usable EVE record: " + err.Error()})
	}
	err := eachRecordTolerant(data, func(line int, r record) error {
		if err := p.add(line, r); err != nil {
			bad(line, err)
		}
		return nil
	}, bad)
	if err != nil {
		var le *lineError
		if errors.As(err, &le) {
			bad(le.line, le.err)
		} else {
			bad(1, err)
		}
	}
	return p.result(), problems
}
