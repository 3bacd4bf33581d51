package eve

import (
	"strings"
	"testing"
)

// ParsePartial keeps the good records of a payload, each with its line,
// and names every bad one's line.
func TestLines(t *testing.T) {
	alert := `{"timestamp":"2024-01-02T03:04:05Z","event_type":"alert","src_ip":"203.0.113.5","dest_ip":"10.0.0.1","alert":{"signature":"ET SCAN x","severity":2}}`
	body := strings.Join([]string{alert, `{"timestamp":"2024-01-02T03:04:05Z","event_type":"alert","src_ip":"203.0`, "", alert,
		`{"event_type":"alert"}`, v1Query}, "\n")
	res, problems := ParsePartial([]byte(body))
	if len(res.Events) != 2 || res.Events[0].Line != 1 || res.Events[1].Line != 4 {
		t.Fatalf("events %+v", res.Events)
	}
	if len(res.DNS) != 1 || res.DNS[0].Line != 6 {
		t.Fatalf("dns %+v", res.DNS)
	}
	if len(problems) != 2 || problems[0].Line != 2 || problems[1].Line != 5 ||
		!strings.Contains(problems[1].Reason, "missing timestamp") {
		t.Fatalf("problems %+v", problems)
	}
	if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Parse: %v", err)
	}
	// In an array, an element that is no object is one problem; the rest go on.
	res, problems = ParsePartial([]byte("[" + alert + `, 7, ` + alert + "]"))
	if len(res.Events) != 2 || res.Events[1].Line != 3 || len(problems) != 1 || problems[0].Line != 2 {
		t.Fatalf("array: events %+v, problems %+v", res.Events, problems)
	}
}
