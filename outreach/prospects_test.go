package outreach

import (
	"strings"
	"testing"

	"garrison/valid"
)

func TestParseCSV(t *testing.T) {
	rows, err := ParseCSV([]byte("\ufeffCompany, Domain ,notes,crm\r\n\"A, Inc\",a.example,\"two\r\nlines \"\"quoted\"\"\",7\r\nB,b.example,,\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Company != "A, Inc" || rows[0].Notes != "two\nlines \"quoted\"" || rows[0].Attributes["crm"] != "7" {
		t.Fatalf("rows: %+v", rows)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "is empty"},
		{"bare quote", "company,domain\na\"b,c.example\n", "line 2"},
		{"wrong count", "company,domain\na,b.example\nc\n", "line 3"},
		{"duplicate column", "company,domain,domain\n", "twice"},
		{"no company", "name,domain\n", "company column"},
		{"not UTF-8", "company,domain\n\xff,a.example\n", "UTF-8"},
	} {
		_, err := ParseCSV([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNormalizeDomain(t *testing.T) {
	for in, want := range map[string]string{"https://www.Acme-Dental.com/contact?x=1": "acme-dental.com", "acme.example.": "acme.example",
		"shop.acme.example:8443": "shop.acme.example"} {
		if got, ok := NormalizeDomain(in); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "localhost", "acme .com", "-acme.com", "acme..com", "ac_me.com"} {
		if _, ok := NormalizeDomain(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestValidateMergesRepeatedDomains(t *testing.T) {
	in, err := Validate([]Row{{Company: "Old", Domain: "a.example", Region: "Ohio"}, {Company: "New", Domain: "www.A.example", Notes: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].Company != "New" || in[0].Region != "Ohio" || in[0].Notes != "n" {
		t.Fatalf("merged: %+v", in)
	}
}

// FuzzImportCSV: any body parses or is refused with a validation error;
// what parses validates or is refused the same way; nothing panics.
func FuzzImportCSV(f *testing.F) {
	f.Add([]byte("company,domain\nA,a.example\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, err := ParseCSV(body)
		if err != nil {
			if _, ok := err.(*valid.Error); !ok {
				t.Fatalf("not a validation error: %T %v", err, err)
			}
			return
		}
		if len(rows) > MaxProspects {
			t.Fatalf("%d rows", len(rows))
		}
		if _, err := Validate(rows); err != nil {
			if _, ok := err.(*valid.Error); !ok {
				t.Fatalf("not a validation error: %T %v", err, err)
			}
		}
	})
}

func TestSignalsAreWholeWords(t *testing.T) {
	for text, want := range map[string]string{"no IT staff here": "no it", "no items in stock": "", "we had no breach": "", "breach in May": "breach",
		"ransomware-infected": "ransomware"} {
		if got := firstPhrase(strings.ToLower(text), []string{"no it", "breach", "ransomware"}); got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

// TestParseJSONDuplicateKey: a key given twice, exactly or in another
// case, is refused with its row; Go's decoder alone would keep the last.
func TestParseJSONDuplicateKey(t *testing.T) {
	for _, body := range []string{
		`[{"company":"A","domain":"a.example","domain":"b.example"}]`,
		`[{"company":"A","domain":"a.example","Domain":"b.example"}]`,
	} {
		_, err := ParseJSON([]byte(body))
		if err == nil || !strings.Contains(err.Error(), "twice") || !strings.Contains(err.Error(), "domain") {
			t.Errorf("%s: %v, want the domain given twice", body, err)
		}
	}
}
