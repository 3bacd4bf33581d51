package handlers

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeEventOracle is the straightforward encoding/json reading of one
// event object; scanEvent must agree with it.
func decodeEventOracle(raw json.RawMessage, prefix string) (eventInput, error) {
	var in eventInput
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		name := strings.TrimSuffix(prefix, ".")
		if name == "" {
			name = "body"
		}
		return in, invalid(name, "must be an event object")
	}
	for k, v := range fields {
		var dst *string
		switch k {
		case "type":
			dst = &in.Type
		case "severity":
			dst = &in.Severity
		case "timestamp":
			dst = &in.Timestamp
		case "source":
			dst = &in.Source
		case "asset":
			dst = &in.Asset
		case "message":
			dst = &in.Message
		case "indicator":
			dst = &in.Indicator
		case "details":
			in.Details = v
			continue
		default:
			return in, invalid(prefix+k, "is not a known field")
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return in, invalid(prefix+k, "must be a string")
		}
	}
	return in, nil
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
			return // the scanner is only given UTF-8 JSON already parsed once
		}
		got, gotErr := scanEvent(raw, "events[0].")
		want, wantErr := decodeEventOracle(raw, "events[0].")
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
