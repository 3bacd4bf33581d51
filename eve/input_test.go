package eve

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"garrison/valid"
)

const okAlert = `{"timestamp":"2018-03-24T14:37:19.037299-0600","event_type":"alert","src_ip":"203.0.113.5","dest_ip":"10.0.0.1","alert":{"signature":"s","severity":2}}`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		line     int
		contains string
	}{
		{"malformed JSON on line 3 of 5", strings.Join([]string{okAlert, okAlert, `{"timestamp":`, okAlert, okAlert}, "\n"), 3, "malformed JSON"},
		{"blank lines still count", okAlert + "\n\n\r\n{oops}\n", 4, "malformed JSON"},
		{"two objects on a line", okAlert + okAlert, 1, "data after the object"},
		{"non-object line", okAlert + "\n[1,2]", 2, "array, not an object"},
		{"string line", `"hello"`, 1, "string, not an object"},
		{"array element 2 not an object", "[" + okAlert + `, 42, ` + okAlert + "]", 2, "number, not an object"},
		{"array element null", "[" + okAlert + `, null]`, 2, "null, not an object"},
		{"array element malformed", "[" + okAlert + `, {"a":}]`, 2, "malformed JSON"},
		{"array missing comma", "[" + okAlert + " " + okAlert + "]", 2, "malformed JSON"},
		{"array unterminated", "[" + okAlert, 2, "malformed JSON"},
		{"data after the array", "[" + okAlert + "] {}", 2, "after the end of the array"},
		{"missing timestamp", `{"event_type":"alert","alert":{"signature":"s"}}`, 1, "missing timestamp"},
		{"numeric timestamp", `{"timestamp":1700000000,"event_type":"alert","alert":{"signature":"s"}}`, 1, "not a string"},
		{"bad timestamp", `{"timestamp":"24/03/2018 14:37","event_type":"alert","alert":{"signature":"s"}}`, 1, "unparseable timestamp"},
		{"bad timestamp on skipped type", `{"timestamp":"yesterday","event_type":"stats"}`, 1, "unparseable timestamp"},
		{"missing event_type", `{"timestamp":"2018-03-24T14:37:19Z"}`, 1, "missing event_type"},
		{"alert without alert object", `{"timestamp":"2018-03-24T14:37:19Z","event_type":"alert"}`, 1, "without an alert object"},
		{"alert without signature", `{"timestamp":"2018-03-24T14:37:19Z","event_type":"alert","alert":{"severity":1}}`, 1, "without alert.signature"},
		{"drop without addresses", `{"timestamp":"2018-03-24T14:37:19Z","event_type":"drop","src_ip":"1.2.3.4"}`, 1, "valid src_ip and dest_ip"},
		{"flow without flow object", `{"timestamp":"2018-03-24T14:37:19Z","event_type":"flow"}`, 1, "without a flow object"},
		{"anomaly without anomaly object", `{"timestamp":"2018-03-24T14:37:19Z","event_type":"anomaly","app_proto":"dns"}`, 1, "without an anomaly object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Parse([]byte(tt.in))
			var ve *valid.Error
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v (%T), want *valid.Error", err, err)
			}
			if ve.Fields()[0] != fmt.Sprintf("line %d", tt.line) || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("err = %q, want line %d containing %q", err, tt.line, tt.contains)
			}
			if len(res.Events)+len(res.DNS)+res.Skipped != 0 {
				t.Errorf("non-empty Result with an error: %+v", res)
			}
		})
	}
}

func TestRefusalFormat(t *testing.T) {
	cause := errors.New("boom")
	err := refusal(&lineError{line: 7, err: cause})
	if err.Error() != "Invalid request: line 7 is not a usable EVE record: boom" || !errors.Is(err, cause) {
		t.Errorf("Error() = %q, Is = %v", err.Error(), errors.Is(err, cause))
	}
}

func TestRecordCap(t *testing.T) {
	lines := func(n int) string { return strings.Repeat(okAlert+"\n", n) }
	array := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(okAlert+",", n), ",") + "]" }
	for _, tt := range []struct {
		name string
		in   string
	}{{"lines", lines(MaxRecords)}, {"array", array(MaxRecords)}} {
		t.Run(tt.name+" at the cap", func(t *testing.T) {
			res := mustParse(t, tt.in+"\n\n")
			if len(res.Events) != MaxRecords {
				t.Errorf("events = %d", len(res.Events))
			}
		})
	}
	for _, tt := range []struct {
		name string
		in   string
	}{{"lines", lines(MaxRecords + 1)}, {"array", array(MaxRecords + 1)}} {
		t.Run(tt.name+" over the cap", func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			var ve *valid.Error
			if !errors.Is(err, ErrTooManyRecords) || !errors.As(err, &ve) || ve.Fields()[0] != fmt.Sprintf("line %d", MaxRecords+1) {
				t.Fatalf("err = %v, want ErrTooManyRecords at line %d", err, MaxRecords+1)
			}
			if !strings.Contains(err.Error(), "at most 10000") {
				t.Errorf("error does not state the cap: %v", err)
			}
		})
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, in := range []string{"", "\n", " \r\n\t\n", "[]", " [ ] \n", "\xef\xbb\xbf"} {
		res, err := Parse([]byte(in))
		if err != nil || len(res.Events) != 0 || len(res.DNS) != 0 || res.Skipped != 0 {
			t.Errorf("Parse(%q) = %+v, %v; want empty, nil", in, res, err)
		}
	}
}

func TestInputForms(t *testing.T) {
	rec2 := strings.Replace(okAlert, `"s"`, `"second"`, 1)
	tests := []struct{ name, in string }{
		{"lines", okAlert + "\n" + rec2 + "\n"},
		{"lines without final newline", okAlert + "\n" + rec2},
		{"CRLF and blank lines", "\r\n" + okAlert + "\r\n\r\n" + rec2 + "\r\n"},
		{"indented", "  " + okAlert + "\t\n\t" + rec2},
		{"BOM", "\xef\xbb\xbf" + okAlert + "\n" + rec2},
		{"array", "[" + okAlert + "," + rec2 + "]"},
		{"pretty array", "\n[\n  " + okAlert + ",\n  " + rec2 + "\n]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustParse(t, tt.in)
			if len(res.Events) != 2 || res.Events[0].Message != "s" || res.Events[1].Message != "second" {
				t.Errorf("got %+v", res.Events)
			}
		})
	}
}

func TestTimestamps(t *testing.T) {
	want := time.Date(2018, 3, 24, 20, 37, 19, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2018-03-24T14:37:19.037299-0600", want.Add(37299 * time.Microsecond)},
		{"2018-03-24T14:37:19-0600", want},
		{"2018-03-24T22:37:19.5+0200", want.Add(500 * time.Millisecond)},
		{"2018-03-24T14:37:19-06:00", want},
		{"2018-03-24T20:37:19.123456789Z", want.Add(123456789)},
		{"2018-03-24T20:37:19Z", want},
		{"2018-03-24T20:37:19+0000", want},
		{"2018-03-24T20:37:19.315110", want.Add(315110 * time.Microsecond)}, // no zone: UTC
		{"2018-03-24T20:37:19", want},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			e := oneEvent(t, strings.Replace(okAlert, "2018-03-24T14:37:19.037299-0600", tt.in, 1))
			if !e.Timestamp.Equal(tt.want) || e.Timestamp.Location() != time.UTC {
				t.Errorf("Timestamp = %v, want %v UTC", e.Timestamp, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "2018-03-24", "2018-03-24 20:37:19", "2018-13-24T20:37:19Z", "2018-03-24T20:37:19 +0200", "1521923839"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := Parse([]byte(strings.Replace(okAlert, "2018-03-24T14:37:19.037299-0600", bad, 1))); err == nil {
				t.Errorf("timestamp %q accepted", bad)
			}
		})
	}
}

func TestLongInputQuotedShort(t *testing.T) {
	long := strings.Repeat("x", 10000)
	_, err := Parse([]byte(`{"timestamp":"` + long + `","event_type":"alert"}`))
	if err == nil {
		t.Fatal("10 kB timestamp accepted")
	}
	if len(err.Error()) > 200 {
		t.Errorf("error is %d bytes long; input should be quoted short", len(err.Error()))
	}
}

// TestJSONSeqRecordSeparators: an RFC 7464 sender puts 0x1E before each
// record; the records read as plain lines.
func TestJSONSeqRecordSeparators(t *testing.T) {
	res := mustParse(t, "\x1e"+okAlert+"\n\x1e"+okAlert+"\r\n")
	if len(res.Events) != 2 {
		t.Fatalf("events = %d", len(res.Events))
	}
}
