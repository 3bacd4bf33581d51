package sigma

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Logsource is the kind of log a rule reads.
type Logsource struct {
	Product  string `json:"product,omitempty"`
	Category string `json:"category,omitempty"`
	Service  string `json:"service,omitempty"`
}

// Levels are a rule's levels, least severe first.
var Levels = []string{"informational", "low", "medium", "high", "critical"}

// Rule is one compiled rule and what it says about itself.
type Rule struct {
	ID             string
	Title          string
	Status         string
	Description    string
	Author         string
	Date           string
	Modified       string
	Level          string
	References     []string
	Tags           []string
	FalsePositives []string
	Logsource      Logsource

	searches map[string]matcher
	names    []string // the searches in the order the rule gives them
	cond     condition
}

// Event is an event as a rule reads it: its fields by Sigma name.
type Event map[string]string

// Prepared is an event made ready for many rules: a value's lower case,
// which most matching compares, is computed once, when first asked for.
// Not safe for concurrent use.
type Prepared struct {
	event Event
	lower map[string]string
}

// Prepare readies an event for matching.
func Prepare(e Event) *Prepared { return &Prepared{event: e} }

// Lower returns a field's value in lower case, and whether it is there.
func (p *Prepared) Lower(field string) (string, bool) {
	_, lower, ok := p.get(field)
	return lower, ok
}

func (p *Prepared) get(field string) (v, lower string, ok bool) {
	v, ok = p.event[field]
	if !ok {
		return "", "", false
	}
	if l, done := p.lower[field]; done {
		return v, l, true
	}
	// Kept even when already lower case: finding that out reads the
	// whole value, and many rules ask for the same field.
	lower = v
	if needsLower(v) {
		lower = strings.ToLower(v)
	}
	if p.lower == nil {
		p.lower = make(map[string]string, len(p.event))
	}
	p.lower[field] = lower
	return v, lower, true
}

// Match reports whether the event matches the rule's detection. Which
// events a rule is asked about (its logsource) is the caller's choice.
func (r *Rule) Match(e Event) bool { return r.MatchPrepared(Prepare(e)) }

// MatchPrepared is Match of an event prepared once for many rules.
func (r *Rule) MatchPrepared(p *Prepared) bool { return r.cond.eval(r, p) }

// Error is why a rule is refused, with the line of the rule's text it
// concerns (0 when it concerns the whole rule).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func errAt(n *yaml.Node, format string, args ...any) *Error {
	return &Error{Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlError turns the YAML parser's error into an Error with its line.
func yamlError(err error) *Error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if line > 0 || m[1] == "0" {
			line += parserErrorShift(m[2])
		}
		return &Error{Line: line, Msg: "not valid YAML: " + m[2]}
	}
	return &Error{Msg: "not valid YAML: " + msg}
}

// parserErrors are the YAML parser's own errors (not its scanner's): the
// parser reports their line counting from 0, where the structure left
// open began, so they are one line early.
var parserErrors = []string{"did not find expected <document start>", "did not find expected node content",
	"did not find expected key", "did not find expected '-' indicator", "did not find expected ',' or ']'",
	"did not find expected ',' or '}'", "found undefined tag handle", "found duplicate %", "found incompatible YAML document"}

func parserErrorShift(msg string) int {
	for _, p := range parserErrors {
		if strings.HasPrefix(msg, p) {
			return 1
		}
	}
	return 0
}

// MaxRuleBytes bounds a rule's text (SigmaHQ's largest, a list of
// vulnerable drivers' hashes, is 290 KiB).
const MaxRuleBytes = 1 << 20

// Parse reads and compiles one rule.
func Parse(src []byte) (*Rule, error) {
	if len(src) > MaxRuleBytes {
		return nil, &Error{Msg: fmt.Sprintf("a rule is at most %d KiB", MaxRuleBytes>>10)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Error{Msg: "the rule is empty"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errAt(root, "a rule is a mapping of keys (title, logsource, detection …)")
	}
	r := &Rule{}
	var detection, logsource *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		var err error
		switch key.Value {
		case "title":
			r.Title, err = text(value, "title")
		case "id":
			r.ID, err = text(value, "id")
		case "status":
			r.Status, err = text(value, "status")
		case "description":
			r.Description, err = text(value, "description")
		case "author":
			r.Author, err = text(value, "author")
		case "date":
			r.Date, err = text(value, "date")
		case "modified":
			r.Modified, err = text(value, "modified")
		case "level":
			r.Level, err = text(value, "level")
			if err == nil && !validLevel(r.Level) {
				err = errAt(value, "level must be one of %s", strings.Join(Levels, ", "))
			}
		case "references":
			r.References, err = texts(value, "references")
		case "tags":
			r.Tags, err = texts(value, "tags")
		case "falsepositives":
			r.FalsePositives, err = texts(value, "falsepositives")
		case "logsource":
			logsource = value
		case "detection":
			detection = value
		case "correlation":
			err = errAt(key, "correlation rules are not supported")
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case r.Title == "":
		return nil, &Error{Line: root.Line, Msg: "the rule has no title"}
	case logsource == nil:
		return nil, &Error{Line: root.Line, Msg: "the rule has no logsource"}
	case detection == nil:
		return nil, &Error{Line: root.Line, Msg: "the rule has no detection"}
	}
	if err := r.readLogsource(logsource); err != nil {
		return nil, err
	}
	if err := r.compileDetection(detection); err != nil {
		return nil, err
	}
	return r, nil
}

func validLevel(l string) bool {
	for _, v := range Levels {
		if l == v {
			return true
		}
	}
	return false
}

func (r *Rule) readLogsource(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errAt(n, "logsource is a mapping of product, category and service")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		var err error
		switch key.Value {
		case "product":
			r.Logsource.Product, err = text(value, "logsource product")
		case "category":
			r.Logsource.Category, err = text(value, "logsource category")
		case "service":
			r.Logsource.Service, err = text(value, "logsource service")
		}
		if err != nil {
			return err
		}
	}
	if r.Logsource == (Logsource{}) {
		return errAt(n, "logsource names no product, category or service")
	}
	return nil
}

// text reads a scalar as text.
func text(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errAt(n, "%s must be text", what)
	}
	return n.Value, nil
}

// texts reads a list of scalars, or one scalar as a list of one.
func texts(n *yaml.Node, what string) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!null" {
			return nil, nil
		}
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, "%s must be a list", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		s, err := text(c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
