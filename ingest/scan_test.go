package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// strictEvent is the oracle's view of an event: encoding/json with exact
// keys, independent of the scanner's own key-to-field mapping.
type strictEvent struct {
	Type      string          `json:"type"`
	Severity  string          `json:"severity"`
	Timestamp string          `json:"timestamp"`
	Source    string          `json:"source"`
	Asset     string          `json:"asset"`
	Message   string          `json:"message"`
	Indicator string          `json:"indicator"`
	Details   json.RawMessage `json:"details"`
}

func decodeEventOracle(raw []byte) (strictEvent, error) {
	var in strictEvent
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return in, errors.New("not an object")
	}
	known := map[string]bool{"type": true, "severity": true, "timestamp": true, "source": true, "asset": true,
		"message": true, "indicator": true, "details": true}
	for k := range keys {
		if !known[k] {
			return in, errors.New("unknown field " + k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return in, dec.Decode(&in)
}

// FuzzScanEvent: on any valid JSON, the scanner and the oracle agree on
// refusing, and on every field when both accept.
func FuzzScanEvent(f *testing.F) {
	for _, seed := range []string{
		`{"type":"threat_detected","severity":"high","timestamp":"2026-01-01T00:00:00Z","source":"s","asset":"h","message":"m"}`,
		`{"message":"a\"b\\c\u00e9\ud83d\ude00","details":{"x":[1,{"y":"}"}],"z":"\""},"indicator":null}`,
		`  { "type" : "a" , "type" : "b" }  `,
		`{"severity":5}`, `{"Type":"x"}`, `{"details":"str"}`, `[1]`, `"x"`, `{}`, `{"message":null,"message":"m"}`,
		`{"details":[],"asset":"\/"}`, `{"source":true}`, `{"unknown":1,"type":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || !utf8.Valid(raw) {
			return // the scanner is only given UTF-8 JSON already validated once
		}
		got, gotErr := scanEvent(raw, "events[0].")
		want, wantErr := decodeEventOracle(raw)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: scanner err %v, oracle err %v", raw, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if got.Type != want.Type || got.Severity != want.Severity || got.Timestamp != want.Timestamp || got.Source != want.Source ||
			got.Asset != want.Asset || got.Message != want.Message || got.Indicator != want.Indicator ||
			string(got.Details) != string(want.Details) {
			t.Fatalf("%q:\nscanner %+v\noracle  %+v", raw, got, want)
		}
	})
}

// FuzzSplitEvents checks the byte walks that take a batch apart against
// encoding/json: the same "events" member, the same elements, on every
// valid body.
func FuzzSplitEvents(f *testing.F) {
	for _, s := range []string{`{"events":[{"type":"x"},{"a":"]}\""}]}`, `{"type":"x","events":[]}`, `{"events":null}`,
		`{ "events" : [ 1 , "two" , {"n":[3]} ] , "events":[{}] }`, `{"message":"{\"events\":[]}"}`, `[{"events":[]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		b := []byte(body)
		if !json.Valid(b) {
			return
		}
		var events []byte
		isObject, _ := eachMember(b, func(key string, value []byte) error {
			if key == "events" {
				events = value
			}
			return nil
		})
		var keys map[string]json.RawMessage
		if json.Unmarshal(b, &keys) != nil || keys == nil {
			if isObject && !bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
				t.Fatalf("%q: walked a body that is no object", body)
			}
			return
		}
		want, isBatch := keys["events"]
		if isBatch != (events != nil) || !bytes.Equal(bytes.TrimSpace(events), bytes.TrimSpace(want)) {
			t.Fatalf("%q: events %q, encoding/json says %q", body, events, want)
		}
		var elems []json.RawMessage
		if json.Unmarshal(want, &elems) != nil || bytes.Equal(bytes.TrimSpace(want), []byte("null")) {
			return
		}
		var got [][]byte
		if ok, _ := eachElement(events, func(_ int, v []byte) error { got = append(got, v); return nil }); !ok || len(got) != len(elems) {
			t.Fatalf("%q: %d elements, want %d", body, len(got), len(elems))
		}
		if n := countElements(events, len(elems)); n != len(elems) {
			t.Fatalf("%q: counted %d elements, want %d", body, n, len(elems))
		}
		for i := range elems {
			if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(elems[i])) {
				t.Fatalf("%q: element %d is %q, want %q", body, i, got[i], elems[i])
			}
		}
	})
}
