package agents

import (
	"context"

	"garrison/alerting"
	"garrison/llm"
)

// narrate lets the language model, when there is one, phrase the report's
// facts as its summary. The deterministic summary stays in the output, and
// any failure of the model falls back to it and says why; so does a
// phrasing that leaves out or contradicts a headline fact the summary
// states (headlines).
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
		ph, err := llm.Phrase(ctx, r.cfg.LLM, report.Task, facts, report.Summary, headlines(report.Output)...)
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

// headlines are the headline facts a report's summary states, read from
// the output keys the agents give them under: the open critical alerts
// (open_alerts.critical, account-manager), the open alerts about a
// researched indicator (alerts) and the known-exploited CVEs it matched
// (cves.matches, threat-researcher), a ticket escalated to a technician
// (escalated, tech-support). Counts of 0 are none.
func headlines(out map[string]any) []llm.Headline {
	var hs []llm.Headline
	if a, ok := out["open_alerts"].(map[string]any); ok {
		hs = append(hs, llm.OpenCriticalAlerts(intOf(a["critical"])))
	}
	if alerts, ok := out["alerts"].([]map[string]any); ok {
		open := 0
		for _, a := range alerts {
			if a["status"] == alerting.Open {
				open++
			}
		}
		hs = append(hs, llm.OpenAlerts(open))
	}
	if c, ok := out["cves"].(map[string]any); ok {
		if matches, ok := c["matches"].([]CVERecord); ok {
			hs = append(hs, llm.KEVExposures(knownExploited(matches)))
		}
	}
	if escalated, ok := out["escalated"].(bool); ok && escalated {
		hs = append(hs, llm.EscalatedTickets(1))
	}
	return hs
}

func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

// knownExploited counts the CVEs on CISA's KEV list.
func knownExploited(cves []CVERecord) int {
	n := 0
	for _, c := range cves {
		if c.KnownExploited {
			n++
		}
	}
	return n
}
