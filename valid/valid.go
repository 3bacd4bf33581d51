// Package valid is the one way Garrison refuses input for its content: an
// Error naming each invalid field and what is wrong with it, collected with
// Problems, and the rules of accepted text (names, free text, e-mail
// addresses, host names). Handlers, ingest, the EVE parser and the agents
// all return it; the API answers it as 400 validation_error.
package valid

import (
	"strings"

	"garrison/fault"
)

// Problem is one invalid field and what is wrong with it, phrased to follow
// the field's name: "must be one of low, medium, high".
type Problem struct {
	Field   string
	Message string
}

// Error refuses input for its content. It holds at least one Problem;
// Cause, when set, is the parser's own error, for errors.Is and the log.
type Error struct {
	Problems []Problem
	Cause    error
}

func (e *Error) Unwrap() error { return e.Cause }

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + " " + p.Message
	}
	return "Invalid request: " + strings.Join(parts, "; ")
}

// Fault is what the client is told: validation_error with the fields.
func (e *Error) Fault() *fault.Error {
	return &fault.Error{Code: fault.Invalid, Message: e.Error(), Fields: e.Fields(), Cause: e.Cause}
}

// Fields names the invalid fields, in the order found.
func (e *Error) Fields() []string {
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.Field
	}
	return out
}

// MaxReported bounds the problems one Error reports: a batch of ten
// thousand bad events names the first few, not all of them.
const MaxReported = 20

// Problems collects the problems of one input, the first per field.
type Problems struct {
	list []Problem
	seen map[string]bool
}

// Add records a problem with field, unless one is already recorded for it
// or MaxReported are.
func (p *Problems) Add(field, message string) {
	if p.seen[field] || len(p.list) >= MaxReported {
		return
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[field] = true
	p.list = append(p.list, Problem{field, message})
}

// Check adds the problem when ok is false.
func (p *Problems) Check(ok bool, field, message string) {
	if !ok {
		p.Add(field, message)
	}
}

// Len is the number of problems recorded.
func (p *Problems) Len() int { return len(p.list) }

// Full reports whether no further problem would be reported.
func (p *Problems) Full() bool { return len(p.list) >= MaxReported }

// Err is nil without problems, else an *Error holding them.
func (p *Problems) Err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &Error{Problems: p.list}
}

// Field is an Error naming one field.
func Field(field, message string) error {
	return &Error{Problems: []Problem{{field, message}}}
}
