package feed

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// Seed corpora: testdata/fuzz/<FuzzName>/.

func FuzzDetect(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		format, r, err := Detect(bytes.NewReader(data))
		if err != nil {
			if format != "" {
				t.Fatalf("Detect returned %q with error %v", format, err)
			}
			var fe *FileError
			if !errors.Is(err, ErrUnknownFormat) && !errors.As(err, &fe) {
				t.Fatalf("Detect error %T %v", err, err)
			}
			return
		}
		if r == nil {
			t.Fatal("nil reader")
		}
		// Whatever was detected parses without panicking, from Detect's
		// reader as from the raw bytes.
		c := &collected{}
		sum1, err1 := Parse(format, r, c.handler())
		sum2, err2 := checkParse(t, format, data)
		if !reflect.DeepEqual(sum1, sum2) || errString(err1) != errString(err2) {
			t.Fatalf("Detect's reader: %+v %v; raw: %+v %v", sum1, err1, sum2, err2)
		}
	})
}

func FuzzParseNVD(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, NVD, data) })
}

func FuzzParseCVE5(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, CVE5, data) })
}

func FuzzParseKEVCSV(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, KEVCSV, data) })
}

func FuzzParseEPSS(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, EPSS, data) })
}

func FuzzParseKEVJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, KEVJSON, data) })
}

func FuzzParseATTACK(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, ATTACK, data) })
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkParse parses data and checks what must hold whatever the input:
// no panic; only *FileError comes back (the handlers never fail); the
// summary counts what the handlers saw; problems are in order, within the
// input; delivered records are valid; Validate agrees with Parse.
func checkParse(t *testing.T, format Format, data []byte) (Summary, error) {
	t.Helper()
	c := &collected{}
	sum, err := Parse(format, bytes.NewReader(data), c.handler())
	if err != nil {
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Fatalf("error %T %v, want *FileError", err, err)
		}
		if fe.Offset < 0 {
			t.Fatalf("negative offset %d", fe.Offset)
		}
	}
	if sum.Format != format || sum.Meta == nil {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Records != c.records() || sum.Skipped != len(c.problems) || sum.Cut != len(c.cuts) {
		t.Fatalf("summary %d/%d/%d, handlers saw %d records %d problems %d cuts", sum.Records, sum.Skipped, sum.Cut, c.records(),
			len(c.problems), len(c.cuts))
	}
	if err := c.withinCaps(); err != nil {
		t.Fatal(err)
	}
	if len(sum.Meta) > MaxMetaKeys+1 { // +1: compression
		t.Fatalf("%d file-level values", len(sum.Meta))
	}
	for k, v := range sum.Meta {
		if len(v) > MaxMetaValue {
			t.Fatalf("meta %s: %d bytes", k, len(v))
		}
	}
	gzipped := len(data) > 1 && data[0] == 0x1f && data[1] == 0x8b
	last := -1
	for _, p := range c.problems {
		if p.Index <= last || p.Offset < 0 || (!gzipped && p.Offset > int64(len(data))) || p.Message == "" ||
			len(p.ID) > MaxWord || len(p.Message) > 1000 {
			t.Fatalf("problem %+v (previous index %d, input %d bytes)", p, last, len(data))
		}
		last = p.Index
	}
	for _, v := range c.cves {
		if !validCVEID(v.ID) || v.Source != format {
			t.Fatalf("delivered %+v", v)
		}
	}
	for _, v := range c.kevs {
		if !validCVEID(v.CVEID) {
			t.Fatalf("delivered %+v", v)
		}
	}
	for _, v := range c.epss {
		if !validCVEID(v.CVEID) || v.Score < 0 || v.Score > 1 || math.IsNaN(v.Score) || v.Percentile < 0 || v.Percentile > 1 {
			t.Fatalf("delivered %+v", v)
		}
	}
	vsum, verr := Validate(format, bytes.NewReader(data))
	if !reflect.DeepEqual(vsum, sum) || errString(verr) != errString(err) {
		t.Fatalf("Validate %+v %v; Parse %+v %v", vsum, verr, sum, err)
	}
	return sum, err
}
