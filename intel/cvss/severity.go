package cvss

// Severity is the qualitative rating of a v3.x or v4.0 score (v3.1 spec §5):
// "none", "low", "medium", "high" or "critical", lower-case like Garrison's
// event severities. The bands are closed on the lower bound, so a score off
// the one-decimal grid (say 3.95) takes the lower band rather than falling
// between two; NaN and scores of 0 or below are "none". For v2 scores it
// gives the v3 bands, which is not what NVD printed for v2 (LOW/MEDIUM/HIGH
// only, 7.0 and up HIGH); one scale for every version keeps Garrison's
// severities comparable.
func Severity(score float64) string {
	switch {
	case score >= 9.0:
		return "critical"
	case score >= 7.0:
		return "high"
	case score >= 4.0:
		return "medium"
	case score > 0:
		return "low"
	default:
		return "none"
	}
}
