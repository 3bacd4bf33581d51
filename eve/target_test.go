package eve

import (
	"fmt"
	"testing"

	"garrison/event"
)

// Only an exploit attempt from outside that the table capped carries a
// Target, with the CVEs its signature and metadata name (one spelling) and
// the products its metadata names ("Any" is none).
func TestExploitTarget(t *testing.T) {
	alert := func(action, sig string, severity int, metadata, src, dst string) string {
		return fmt.Sprintf(`{"timestamp":"2026-11-20T10:00:00.000000+0000","event_type":"alert","src_ip":%q,"dest_ip":%q,`+
			`"alert":{"action":%q,"signature":%q,"category":"Attempted Administrator Privilege Gain","severity":%d,"metadata":%s}}`,
			src, dst, action, sig, severity, metadata)
	}
	const log4j = "ET EXPLOIT Apache log4j RCE Attempt (CVE-2021-44228)"
	cases := []struct {
		name, line string
		want       string // CVEs Products Uncapped, or "none"
	}{
		{"inbound, CVE in text and metadata", alert("allowed", log4j, 1, `{"cve":["CVE_2021_44228","CVE_2021_45046"],"affected_product":["Apache_log4j2"]}`, "203.0.113.9", "10.0.0.5"),
			"[CVE-2021-44228 CVE-2021-45046] [Apache_log4j2] high"},
		{"Any is no product", alert("allowed", "ET EXPLOIT Generic Attempt", 1, `{"affected_product":["Any"]}`, "203.0.113.9", "10.0.0.5"), "none"},
		{"outbound is not capped", alert("allowed", log4j, 1, `{}`, "10.0.0.5", "203.0.113.9"), "none"},
		{"blocked did not reach the host", alert("blocked", log4j, 1, `{}`, "203.0.113.9", "10.0.0.5"), "none"},
		{"severity 2 is medium already", alert("allowed", log4j, 2, `{}`, "203.0.113.9", "10.0.0.5"), "none"},
		{"policy is not an exploit", alert("allowed", "ET POLICY log4j lookup (CVE-2021-44228)", 1, `{}`, "203.0.113.9", "10.0.0.5"), "none"},
		{"metadata of the wrong type", alert("allowed", "ET WEB_SERVER Attempt", 1, `{"cve":"CVE_2021_44228","affected_product":[1,"WordPress"]}`, "203.0.113.9", "10.0.0.5"),
			"[] [WordPress] high"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse([]byte(c.line))
			if err != nil || len(res.Events) != 1 {
				t.Fatalf("%v %+v", err, res)
			}
			got := "none"
			if tg := res.Events[0].Target; tg != nil {
				if tg.Host.String() != "10.0.0.5" || res.Events[0].Severity != event.Medium {
					t.Fatalf("target %+v, severity %v", tg, res.Events[0].Severity)
				}
				got = fmt.Sprint(tg.CVEs, " ", tg.Products, " ", tg.Uncapped)
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}
