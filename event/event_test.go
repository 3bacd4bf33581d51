package event

import (
	"encoding/json"
	"testing"
)

func TestSeverityNamesRoundTrip(t *testing.T) {
	for i, name := range SeverityNames() {
		s, ok := ParseSeverity(name)
		if !ok || s != Severity(i) || s.String() != name || !s.Valid() {
			t.Errorf("%q: parsed %v %v", name, s, ok)
		}
		b, err := json.Marshal(s)
		if err != nil || string(b) != `"`+name+`"` {
			t.Errorf("%q marshals as %s, %v", name, b, err)
		}
		var back Severity
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s unmarshals as %v, %v", b, back, err)
		}
	}
}

func TestSeverityRefusesUnknown(t *testing.T) {
	for _, name := range []string{"", "High", "HIGH", "severe", " high", "4"} {
		if _, ok := ParseSeverity(name); ok {
			t.Errorf("%q accepted", name)
		}
		var s Severity
		if err := json.Unmarshal([]byte(`"`+name+`"`), &s); err == nil {
			t.Errorf("%q unmarshalled", name)
		}
	}
	if _, err := json.Marshal(Severity(7)); err == nil || Severity(-1).Valid() {
		t.Error("out-of-range severity marshalled or valid")
	}
	if Severity(9).String() != "severity(9)" {
		t.Error(Severity(9).String())
	}
}

func TestOrderAndCounts(t *testing.T) {
	if !(Info < Low && Low < Medium && Medium < High && High < Critical) {
		t.Fatal("severities out of order")
	}
	c := Counts{Info: 1, Low: 2, Medium: 3, High: 4, Critical: 5}
	if c.Total() != 15 || c.AtLeast(High) != 9 || c.AtLeast(Info) != 15 {
		t.Fatalf("total %d, at least high %d", c.Total(), c.AtLeast(High))
	}
	m := c.ByName()
	if len(m) != Levels || m["critical"] != 5 || m["info"] != 1 {
		t.Fatalf("by name %v", m)
	}
}

func TestTypes(t *testing.T) {
	for _, typ := range Types {
		if !ValidType(typ) {
			t.Errorf("%s not valid", typ)
		}
	}
	if ValidType("threat") || ValidType("") {
		t.Error("unknown type valid")
	}
}
