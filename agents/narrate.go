package agents

import (
	"context"
	"errors"

	"garrison/llm"
)

// narrate lets the language model, when there is one, phrase the report's
// facts as its summary. The deterministic summary stays in the output, and
// any failure of the model falls back to it and says why.
func (r *Runner) narrate(ctx context.Context, report *Report) {
	if report.Output == nil {
		report.Output = map[string]any{}
	}
	narrative := map[string]any{"source": "deterministic"}
	defer func() { report.Output["narrative"] = narrative }()
	if r.cfg.LLM == nil {
		return
	}
	facts := map[string]any{"facts_summary": report.Summary}
	for k, v := range report.Output {
		facts[k] = v
	}
	text, err := r.cfg.LLM.Narrate(ctx, report.Task, facts)
	if err != nil {
		narrative["fallback_reason"] = fallbackReason(err)
		r.cfg.Log.Warn("language model narrative failed; using the deterministic summary", "err", err)
		return
	}
	report.Output["facts_summary"] = report.Summary
	report.Summary = text
	narrative["source"], narrative["model"] = "llm", r.cfg.LLM.Model()
}

// fallbackReason says, without internals, why the model's text is not used.
func fallbackReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "The language model did not answer in time; the deterministic summary is shown."
	case errors.Is(err, llm.ErrInvented):
		return "The language model's text stated something the facts do not; the deterministic summary is shown."
	}
	return "The language model could not be used; the deterministic summary is shown."
}
