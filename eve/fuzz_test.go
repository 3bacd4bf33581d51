package eve

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"garrison/valid"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		okAlert,
		alertLine(`"action":"blocked","severity":1,"signature":"ET TROJAN x\nnext","category":"c"`),
		v1Query + "\n" + v1Ans1 + "\n" + v1Ans2,
		v2QueryA + "\r\n" + v2QueryAAAA + "\r\n" + v2AnsA + "\r\n" + v2AnsAAAA,
		"[" + v3Request + "," + v3Response + "]",
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"drop","src_ip":"::ffff:10.0.0.1","dest_ip":"fe80::1%eth0","src_port":70000,"proto":"TCP"}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"anomaly","app_proto":"dns","src_ip":"10.0.0.1","anomaly":{"event":"\u2028"}}`,
		`{"timestamp":"2021-06-06T16:26:27","event_type":"flow","src_ip":"1.2.3.4","dest_ip":"10.0.0.1","flow":{"action":"drop"}}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"alert","flow_id":1e999,"alert":{"severity":1e400,"signature_id":-0}}`,
		"[1, {}]",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(data)
		if err != nil {
			var ve *valid.Error
			if !errors.As(err, &ve) || len(ve.Fields()) != 1 || !strings.HasPrefix(ve.Fields()[0], "line ") {
				t.Fatalf("error %v (%T) is not a *valid.Error naming a line", err, err)
			}
			if len(res.Events)+len(res.DNS)+res.Skipped != 0 {
				t.Fatalf("error %v with a non-empty result", err)
			}
			return
		}
		for _, e := range res.Events {
			if !eventTypes[e.Type] || !severities[e.Severity] {
				t.Fatalf("type %q severity %q", e.Type, e.Severity)
			}
			for _, s := range []string{e.Message, e.Indicator, e.Asset} {
				if s == "" || strings.ContainsAny(s, "\r\n\u2028\u2029") || len(s) > maxText || !utf8.ValidString(s) {
					t.Fatalf("unsafe or empty text %q in %+v", s, e)
				}
			}
			if e.Timestamp.Location().String() != "UTC" {
				t.Fatalf("timestamp %v not in UTC", e.Timestamp)
			}
			for k, v := range e.Details {
				if s, ok := v.(string); ok && (strings.ContainsAny(s, "\r\n") || len(s) > maxText) {
					t.Fatalf("Details[%q] = %q", k, s)
				}
			}
		}
		for _, q := range res.DNS {
			if q.Domain == "" || q.Client == "" || strings.HasSuffix(q.Domain, ".") ||
				q.Domain != strings.ToLower(q.Domain) || strings.ContainsAny(q.Domain+q.QType+q.RCode, "\r\n") {
				t.Fatalf("bad DNS query %+v", q)
			}
		}
	})
}
