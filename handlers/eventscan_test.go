package handlers

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// decodeEventOracle reads one event with the strict decoder every other
// body goes through (exact keys, struct tags): independent of the
// scanner's own key-to-field mapping.
func decodeEventOracle(raw []byte) (eventInput, error) {
	var in eventInput
	err := decodeJSON(raw, &in)
	return in, err
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
