package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"garrison/event"
	"garrison/fault"
	"garrison/store"
)

// encodeBoth answers one page both ways: writeEventList and encoding/json.
func encodeBoth(views []eventView, total int, p store.Page) (fast, std []byte) {
	a, b := httptest.NewRecorder(), httptest.NewRecorder()
	writeEventList(a, views, total, p)
	writeList(b, views, total, p)
	return a.Body.Bytes(), b.Body.Bytes()
}

func TestEventListMatchesEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", `quo"te`, `back\slash`, "tab\tnew\nline\rret", "\b\f\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
		"ünïcödé 日本語 🛡", "bad \xff\xfe utf-8", "sep\u2028para\u2029", "\xe2\x80", strings.Repeat("x", 300)}
	details := []string{"", "{}", `{"a":1}`, `{ "a" : [1, 2 ,3],` + "\n\t" + `"b":"keep  these  spaces"}`, `{"s":"esc\"aped \\ \u2028 <&>"}`,
		`{"nested":{"deep":[{"x":null,"y":true,"z":-1.5e10}]}}`, "{\"ws in string\":\" \\t \"}\r\n"}
	var views []eventView
	for i, s := range tricky {
		d := details[i%len(details)]
		e := event.Event{ID: "evt_" + s, Type: s, Severity: 3, Timestamp: time.Unix(int64(i), 0), Source: s, Asset: s, Message: s,
			Indicator: tricky[(i+3)%len(tricky)], AlertID: tricky[(i+5)%len(tricky)], ReceivedAt: time.Unix(int64(i), 999e6)}
		if d != "" {
			e.Details = []byte(d)
		}
		if i%3 > 0 { // some with normalised fields, some with a few, some with none
			e.Fields = event.Fields{SrcIP: netip.MustParseAddr("203.0.113.7"), SrcPort: uint16(i), User: s, CommandLine: tricky[(i+1)%len(tricky)]}
			if i%3 == 2 {
				e.Fields = event.Fields{DstIP: netip.MustParseAddr("2001:db8::1"), DstPort: 443, Process: s, Host: s, Rule: s, Action: s}
			}
		}
		v := newEventView(e)
		if i%4 == 1 {
			v.Original = &tricky[(i+2)%len(tricky)]
		}
		views = append(views, v)
	}
	for _, tc := range []struct {
		name  string
		views []eventView
		total int
		page  store.Page
	}{
		{"empty page", nil, 0, store.Page{Limit: 50}},
		{"empty page past the end", []eventView{}, 7, store.Page{Limit: 50, Offset: 100}},
		{"tricky strings and details", views, 1000, store.Page{Limit: 50, Offset: 10}},
		{"last page", views[:3], 13, store.Page{Limit: 3, Offset: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast, std := encodeBoth(tc.views, tc.total, tc.page)
			if !bytes.Equal(fast, std) {
				t.Fatalf("differs from encoding/json:\nfast %s\nstd  %s", fast, std)
			}
		})
	}
	// Details that are not JSON (never stored) answer as encoding/json does.
	broken := []eventView{newEventView(event.Event{ID: "evt_1", Details: []byte(`{"a": nope}`)})}
	if fast, std := encodeBoth(broken, 1, store.Page{Limit: 1}); !bytes.Equal(fast, std) || !bytes.Contains(std, []byte(fault.Internal)) {
		t.Fatalf("broken details:\nfast %s\nstd  %s", fast, std)
	}
}

func FuzzEventJSON(f *testing.F) {
	f.Add("evt_1", "threat_detected", "msg", "198.51.100.7", `{"a": [1, "b c"]}`)
	f.Add("x\u2028", "\xff", "tab\t\"q\"", "", `{}`)
	f.Add("", "<&>", "\x00\x1f", "\\", "{\n\"k\" :\t\"v\\u2028\"\r}")
	f.Fuzz(func(t *testing.T, id, typ, message, indicator, details string) {
		e := event.Event{ID: id, Type: typ, Message: message, Indicator: indicator, Source: message, Asset: typ}
		if details != "" {
			var obj map[string]any
			if json.Unmarshal([]byte(details), &obj) != nil {
				return // only JSON objects are ever stored
			}
			e.Details = []byte(details)
		}
		fast, std := encodeBoth([]eventView{newEventView(e)}, 1, store.Page{Limit: 1})
		if !bytes.Equal(fast, std) {
			t.Fatalf("differs from encoding/json:\nfast %q\nstd  %q", fast, std)
		}
	})
}

// BenchmarkEventListEncoding: a page of 50 events, the two ways.
func BenchmarkEventListEncoding(b *testing.B) {
	views := make([]eventView, 50)
	for i := range views {
		views[i] = newEventView(event.Event{ID: fmt.Sprintf("evt_01jabcdefghjkmnpqrstvwx%03d", i), Type: "threat_detected", Severity: 2,
			Timestamp: time.Now(), Source: "suricata", Asset: "host-17", Message: "ET SCAN Suspicious inbound to mySQL port 3306",
			Indicator: "198.18.3.4", ReceivedAt: time.Now(),
			Details: []byte(`{"src_port":51234,"dest_port":3306,"proto":"TCP","signature_id":2010937,"category":"Potentially Bad Traffic"}`)})
	}
	for _, way := range []struct {
		name  string
		write func(*httptest.ResponseRecorder)
	}{
		{"writeEventList", func(w *httptest.ResponseRecorder) { writeEventList(w, views, 1_000_000, store.Page{Limit: 50}) }},
		{"encoding-json", func(w *httptest.ResponseRecorder) { writeList(w, views, 1_000_000, store.Page{Limit: 50}) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				way.write(httptest.NewRecorder())
			}
		})
	}
}
