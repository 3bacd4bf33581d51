package ingest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"garrison/blocklist"
	"garrison/event"
	"garrison/valid"
)

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const okEvent = `{"type":"threat_detected","severity":"high","timestamp":"2026-11-21T11:00:00Z","source":"ids","asset":"WS-1","message":"m"}`

func fields(t *testing.T, err error) string {
	t.Helper()
	var ve *valid.Error
	if !errors.As(err, &ve) {
		t.Fatalf("%v (%T) is not a *valid.Error", err, err)
	}
	return strings.Join(ve.Fields(), ",")
}

func TestParseNativeShapes(t *testing.T) {
	blocked := blocklist.New()
	if _, err := blocked.Import(strings.NewReader("tracker.example\n"), blocklist.CategoryTracker); err != nil {
		t.Fatal(err)
	}
	dns := `{"timestamp":"2026-11-21T11:00:00Z","client":"::ffff:10.0.0.9","domain":"Tracker.Example.","qtype":"a"}`
	tests := []struct {
		kind, body      string
		events, queries int
	}{
		{KindEvents, okEvent, 1, 0},
		{KindEvents, `{"events":[` + okEvent + `,` + okEvent + `]}`, 2, 0},
		{KindNative, `{"events":[` + okEvent + `],"dns":[` + dns + `]}`, 1, 1},
		{KindNative, `{"dns":[` + dns + `,` + dns + `]}`, 0, 2},
		{KindNative, strings.Replace(okEvent, `"source":"ids",`, "", 1), 1, 0},
	}
	for _, tc := range tests {
		b, err := Parse(tc.kind, []byte(tc.body), Options{Now: testNow, Blocked: blocked})
		if err != nil || len(b.Events) != tc.events || len(b.DNS) != tc.queries {
			t.Fatalf("%s %s: %d events %d queries, %v", tc.kind, tc.body, len(b.Events), len(b.DNS), err)
		}
		for _, e := range b.Events {
			if e.Severity != event.High || e.Asset != "ws-1" || e.Source == "" {
				t.Errorf("event %+v", e)
			}
		}
		for _, q := range b.DNS {
			if q.Domain != "tracker.example" || q.Client != "10.0.0.9" || q.QType != "A" || q.Category != blocklist.CategoryTracker ||
				q.Source != SourceNative {
				t.Errorf("query %+v", q)
			}
		}
	}
}

func TestParseNativeRefusals(t *testing.T) {
	tests := []struct {
		kind, body, fields string
	}{
		{KindEvents, `[` + okEvent + `]`, "body"},
		{KindEvents, `{"events":[` + okEvent, "body"},
		{KindEvents, "{\"message\":\"\xff\"}", "body"},
		{KindEvents, `{"events":[]}`, "events"},
		{KindEvents, `{"events":{}}`, "events"},
		{KindEvents, `{"events":[` + okEvent + `],"dns":[]}`, "dns"},
		{KindEvents, `{"events":[1]}`, "events[0]"},
		{KindEvents, `{"events":[{"Type":"x"}]}`, "events[0].Type"},
		{KindEvents, `{"events":[{"message":5}]}`, "events[0].message"},
		{KindEvents, `{"type":"nope","severity":"severe","timestamp":"soon","source":" ","asset":"a b","message":""}`,
			"type,severity,timestamp,source,asset,message"},
		{KindEvents, strings.Replace(okEvent, "2026-11-21T11", "2026-11-23T11", 1), "timestamp"},
		{KindEvents, strings.Replace(okEvent, "2026-11-21T11", "1999-11-21T11", 1), "timestamp"},
		{KindEvents, strings.Replace(okEvent, `"message":"m"`, `"message":"m","details":[1]`, 1), "details"},
		{KindEvents, strings.Replace(okEvent, `"message":"m"`, `"message":"m\u0000","indicator":"\u001b[31m"`, 1), "message,indicator"},
		{KindNative, `{"dns":[{"timestamp":"2026-11-21T11:00:00Z","client":"nope","domain":"10.0.0.1","qtype":"` +
			strings.Repeat("A", 17) + `","rcode":"x\ty"}]}`, "dns[0].client,dns[0].domain,dns[0].qtype,dns[0].rcode"},
		{KindNative, `{"dns":[{"host":"x"}]}`, "dns[0].host"},
		{KindNative, `{"dns":"x"}`, "dns"},
		{KindNative, `{"events":[],"dns":[],"extra":1}`, "extra"},
		{"pcap", okEvent, "source"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.kind, []byte(tc.body), Options{Now: testNow, Blocked: blocklist.New()})
		if got := fields(t, err); got != tc.fields {
			t.Errorf("%s %.80s: fields %s, want %s (%v)", tc.kind, tc.body, got, tc.fields, err)
		}
	}
}

func TestProblemsReportedAreBounded(t *testing.T) {
	body := `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"type":"x"},`, 500), ",") + `]}`
	_, err := Parse(KindEvents, []byte(body), Options{Now: testNow})
	var ve *valid.Error
	if !errors.As(err, &ve) || len(ve.Problems) != valid.MaxReported {
		t.Fatalf("%d problems reported: %v", len(ve.Problems), err)
	}
}

// TestBatchCapCountsEveryRecord: events and DNS queries together, at most
// MaxRecords; the first past it refuses the body.
func TestBatchCapCountsEveryRecord(t *testing.T) {
	dns := `{"timestamp":"2026-11-21T11:00:00Z","client":"10.0.0.9","domain":"a.example"}`
	list := func(item string, n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	at := fmt.Sprintf(`{"events":[%s],"dns":[%s]}`, list(okEvent, MaxRecords/2), list(dns, MaxRecords/2))
	if b, err := Parse(KindNative, []byte(at), Options{Now: testNow}); err != nil || len(b.Events)+len(b.DNS) != MaxRecords {
		t.Fatalf("at the cap: %v", err)
	}
	over := fmt.Sprintf(`{"events":[%s],"dns":[%s]}`, list(okEvent, MaxRecords/2), list(dns, MaxRecords/2+1))
	if _, err := Parse(KindNative, []byte(over), Options{Now: testNow}); fields(t, err) != "dns" ||
		!strings.Contains(err.Error(), "more than 10000") {
		t.Fatalf("over the cap: %v", err)
	}
}

// TestHostileBodyRefusedWithoutMaterialising: a body of a million empty
// objects is refused at entry MaxRecords+1 having allocated next to
// nothing, instead of a slice of a million entries.
func TestHostileBodyRefusedWithoutMaterialising(t *testing.T) {
	body := []byte(`{"events":[` + strings.Repeat(`{},`, 1_000_000) + `{}]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(KindEvents, body, Options{Now: testNow})
	runtime.ReadMemStats(&after)
	if fields(t, err) != "events" || !strings.Contains(err.Error(), "more than 10000") {
		t.Fatalf("refusal: %v", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64<<10 {
		t.Fatalf("refusing allocated %d bytes", allocated)
	}
}

func TestParseEVE(t *testing.T) {
	alert := `{"timestamp":"2026-11-21T10:00:00.000000+0000","event_type":"alert","src_ip":"203.0.113.5","src_port":4444,` +
		`"dest_ip":"10.0.0.1","dest_port":22,"proto":"TCP","alert":{"action":"allowed","signature":"ET SCAN x","category":"Attempted Information Leak","severity":2}}`
	dns := `{"timestamp":"2026-11-21T10:00:00Z","event_type":"dns","src_ip":"10.0.0.2","dns":{"type":"query","rrname":"a.example","rrtype":"A"}}`
	b, err := Parse(KindSuricata, []byte(alert+"\n"+dns+"\n"+`{"timestamp":"2026-11-21T10:00:00Z","event_type":"stats"}`), Options{Now: testNow})
	if err != nil || len(b.Events) != 1 || len(b.DNS) != 1 || b.Skipped != 1 {
		t.Fatalf("%+v, %v", b, err)
	}
	// An inbound scan is at most low (eve/severity.go).
	if e := b.Events[0]; e.Source != SourceSuricata || e.Severity != event.Low || e.Category != "Attempted Information Leak" {
		t.Errorf("event %+v", e)
	}
	_, err = Parse(KindSuricata, []byte(alert+"\n{"), Options{Now: testNow})
	if fields(t, err) != "line 2" || !strings.Contains(err.Error(), "nothing was stored") {
		t.Errorf("bad line: %v", err)
	}
	future := strings.Replace(alert, "2026-11-21T10", "2026-11-29T10", 1)
	if _, err := Parse(KindSuricata, []byte(future), Options{Now: testNow}); fields(t, err) != "line 1" {
		t.Errorf("future record: %v", err)
	}
}
