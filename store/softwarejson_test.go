package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The fast reading of a stored software list and encoding/json agree on
// every input: the same list, or both an error.
func FuzzParseSoftware(f *testing.F) {
	for _, s := range []string{
		`[]`, `null`, ``, `[{}]`, ` [ { "vendor" : "a" , "product":"b","version":"1.0"} ] `,
		`[{"vendor":"mozilla","product":"firefox","version":"68.0","rule":"display name: mozilla:firefox"},{"vendor":"x","product":"y","version":"","cpe":"cpe:2.3:a:x:y:*:*:*:*:*:*:*:*"}]`,
		`[{"vendor":"a\"b","product":"\u00e9","version":"\u003c1"}]`, `[{"Vendor":"a"}]`, `[{"vendor":1}]`, `[{"vendor":"a","vendor":"b"}]`,
		`[{"vendor":"é"}]`, "[{\"vendor\":\"\xff\"}]", `[{"vendor":"a"},]`, `[{"vendor":"a"}] x`, `[{"other":"a"}]`, `[{"vendor":null}]`,
		`[{"vendor":"gnu","product":"glibc","version":"2.13","packages":["deb:libc6:amd64=2.13-38","deb:libc-bin:amd64=2.13-38"]}]`,
		`[{"packages":[]}]`, `[{"packages":null}]`, `[{"packages":["a",]}]`, `[{"packages":["a"],"packages":["b"]}]`, `[{"packages":"a"}]`, `[{"packages":[1]}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSoftware(s)
		var want []Software
		wantErr := json.Unmarshal([]byte(s), &want)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", s, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%q: %+v, encoding/json reads %+v", s, got, want)
		}
	})
}

// What json.Marshal writes is read without encoding/json.
func TestParseSoftwareFast(t *testing.T) {
	list := []Software{{Vendor: "mozilla", Product: "firefox", Version: "68.0", Rule: "display name: mozilla:firefox"},
		{Vendor: "Zürich AG", Product: "x", CPE: "cpe:2.3:a:x:y:*:*:*:*:*:*:*:*"},
		{Vendor: "gnu", Product: "glibc", Version: "2.13", Packages: []string{"deb:libc6:amd64=2.13-38+deb7u10", "deb:libc-bin:amd64=2.13-38+deb7u10"}}}
	b, _ := json.Marshal(list)
	got, ok := parseSoftwareFast(string(b))
	if !ok || !reflect.DeepEqual(got, list) {
		t.Fatalf("%s: %+v, %v", b, got, ok)
	}
}

func BenchmarkParseSoftware(b *testing.B) {
	var list []Software
	for i := range 50 {
		list = append(list, Software{Vendor: "vendor" + string(rune('a'+i%26)), Product: "product-name", Version: "1.2.3"})
	}
	raw, _ := json.Marshal(list)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseSoftware(string(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var out []Software
			if err := json.Unmarshal(raw, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
