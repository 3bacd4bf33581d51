package valid

import (
	"bytes"
	"encoding/json"
)

// Member is one key of a JSON object and its value, as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members are a JSON object's keys and values in the order written, a key
// given twice included twice (Go's decoder keeps only the last, so a
// reader that must refuse duplicates walks these); ok is false for
// anything but a well-formed object.
func Members(body []byte) ([]Member, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		out = append(out, Member{key, value})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return out, true
}
