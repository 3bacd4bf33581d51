package agents

import (
	"context"

	"garrison/llm"
)

// narrate lets the language model, when there is one, phrase the report's
// facts as its summary. The deterministic summary stays in the output, and
// any failure of the model falls back to it and says why.
func (r *Runner) narrate(ctx context.Context, report *Report) {
	if report.Output == nil {
		report.Output = map[string]any{}
	}
	facts := map[string]any{"facts_summary": report.Summary}
	for k, v := range report.Output {
		facts[k] = v
	}
	narrative := map[string]any{"source": "deterministic"}
	if r.cfg.LLM != nil {
		ph, err := llm.Phrase(ctx, r.cfg.LLM, report.Task, facts, report.Summary)
		if err != nil {
			if ctx.Err() == nil { // a stopped or cancelled run is not the model's failure
				r.cfg.Log.Warn("language model narrative failed; using the deterministic summary", "err", err)
			}
			narrative["fallback_reason"] = ph.FallbackReason
		}
		if ph.ByModel() {
			report.Output["facts_summary"] = report.Summary
			report.Summary = ph.Text
			narrative["source"], narrative["model"] = "llm", ph.Model
		}
	}
	report.Output["narrative"] = narrative
}
