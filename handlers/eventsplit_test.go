package handlers

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSplitEvents checks the byte walk that splits a batch against
// encoding/json: same elements, same batch decision, on every valid body.
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
		raws, batch, err := splitEvents(b)
		var keys map[string]json.RawMessage
		if json.Unmarshal(b, &keys) != nil {
			if err == nil {
				t.Fatalf("%q: split a body that is no object", body)
			}
			return
		}
		events, isBatch := keys["events"]
		if isBatch != batch {
			t.Fatalf("%q: batch %v, encoding/json says %v", body, batch, isBatch)
		}
		var want []json.RawMessage
		if !isBatch || len(keys) > 1 || json.Unmarshal(events, &want) != nil || bytes.Equal(bytes.TrimSpace(events), []byte("null")) {
			return // refused either way, or one event
		}
		if err != nil || len(raws) != len(want) {
			t.Fatalf("%q: %d elements (%v), want %d", body, len(raws), err, len(want))
		}
		for i := range want {
			if !bytes.Equal(bytes.TrimSpace(raws[i]), bytes.TrimSpace(want[i])) {
				t.Fatalf("%q: element %d is %q, want %q", body, i, raws[i], want[i])
			}
		}
	})
}
