package detection

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/sigma"
	"garrison/telemetry"
)

// A Windows event Wazuh forwards (its eventchannel decoder's data.win, every
// EventData name with its first letter lowered) fires what the event
// fires as evtx_dump renders it: each of SigmaHQ's 222 regression events,
// rendered as a Wazuh alert, fires the same rules.
func TestWazuhWindowsFiresAsEvtx(t *testing.T) {
	set := needRegression(t)
	ids := func(fields map[string]string, sources []sigma.Logsource) string {
		var out []string
		for _, r := range set.engine.Match(fields, sources, nil) {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	events := 0
	for _, c := range set.cases {
		for _, e := range c.events {
			eventdata := map[string]string{}
			for k, v := range e.fields {
				switch k {
				case "EventID", "Channel", "Provider_Name":
				default:
					eventdata[strings.ToLower(k[:1])+k[1:]] = v
				}
			}
			alert, err := json.Marshal(map[string]any{"timestamp": "2026-11-20T10:00:00.000+0000",
				"rule":  map[string]any{"level": 3, "id": "61603", "description": "Sysmon - Event 1", "groups": []string{"windows", "sysmon"}},
				"agent": map[string]any{"id": "004", "name": "ws-1"},
				"data": map[string]any{"win": map[string]any{
					"system":    map[string]any{"eventID": e.fields["EventID"], "channel": e.fields["Channel"], "providerName": e.fields["Provider_Name"], "computer": "ws-1"},
					"eventdata": eventdata}}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := telemetry.Parse(telemetry.FormatWazuh, alert, time.Now())
			if err != nil || len(res.Records) != 1 {
				t.Fatalf("%s: %v %+v", e.file, err, res.Problems)
			}
			fields, sources := Input(res.Records[0].Raw)
			if got, want := ids(fields, sources), ids(e.fields, e.sources); got != want {
				t.Errorf("%s: as Wazuh forwards it fires %s, as evtx_dump renders it %s", e.file, got, want)
			}
			events++
		}
	}
	if events < 220 {
		t.Fatalf("%d events rendered", events)
	}
}
