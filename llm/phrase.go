package llm

import (
	"context"
	"errors"
	"strings"
)

// Phrasing is the text shown for some facts: the model's, when one is
// configured and its answer passes the checks, otherwise the plain text
// and the reason.
type Phrasing struct {
	Text           string
	Model          string // "" when the plain text is shown
	FallbackReason string // why the plain text is shown although a model is configured
}

// ByModel reports whether the model wrote the text.
func (p Phrasing) ByModel() bool { return p.Model != "" }

// Phrase is the one way Garrison narrates: it asks the model (c may be nil:
// none configured) to phrase facts about task, and falls back to plain on
// any failure, an invented number or CVE id, and a headline fact of plain
// (headlines) left out or contradicted. err is the model's failure, for
// the log; the Phrasing is usable either way.
func Phrase(ctx context.Context, c *Client, task string, facts any, plain string, headlines ...Headline) (Phrasing, error) {
	if c == nil {
		return Phrasing{Text: plain}, nil
	}
	text, err := c.Narrate(ctx, task, facts, headlines...)
	if err != nil {
		return Phrasing{Text: plain, FallbackReason: fallbackReason(err)}, err
	}
	return Phrasing{Text: text, Model: c.Model()}, nil
}

// fallbackReason says, without internals, why the model's text is not used.
func fallbackReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "The language model did not answer in time; the deterministic summary is shown."
	case errors.Is(err, ErrInvented):
		return "The language model's text stated something the facts do not; the deterministic summary is shown."
	case errors.Is(err, ErrHidden):
		return "The language model's text left out or contradicted a headline fact (" + hiddenFact(err) + "); the deterministic summary is shown."
	}
	return "The language model could not be used; the deterministic summary is shown."
}

// hiddenFact is what an ErrHidden error says of the fact, after the
// sentinel's text.
func hiddenFact(err error) string {
	_, fact, _ := strings.Cut(err.Error(), ErrHidden.Error()+": ")
	return fact
}
