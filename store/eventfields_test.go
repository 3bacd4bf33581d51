package store

import (
	"context"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// Every normalised field comes back from a page as stored, through the
// packed column: addresses whose bytes include NUL and 0xff, the ports'
// extremes, text holding the packing's own ":" and "-" and several-byte
// characters, and a native event with none of them.
func TestPackedFieldsRoundTrip(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	cases := []event.Fields{
		{},
		{SrcIP: netip.MustParseAddr("0.0.0.1"), DstIP: netip.MustParseAddr("255.255.255.255"), SrcPort: 1, DstPort: 65535},
		{SrcIP: netip.MustParseAddr("::"), DstIP: netip.MustParseAddr("ff02::1:ff00:0")},
		{User: "-", Process: ":", CommandLine: `cmd.exe /c "echo 12:- |"` + "\n\tnext", Host: "hôte-ünïcode", Rule: "1:2:3", Action: "-1"},
		{User: strings.Repeat("u", event.MaxFieldText), CommandLine: strings.Repeat("ç", event.MaxCommandLine/2)},
		{Action: "block"},
	}
	start := foldNow.Add(-time.Hour)
	var batch []NewEvent
	for i, f := range cases {
		batch = append(batch, NewEvent{Type: "activity", Severity: 1, Timestamp: start.Add(time.Duration(i) * time.Second),
			Source: "syslog", Asset: "h", Message: "m", Fields: f})
	}
	ingest(t, s, "org_a", batch...)
	got, _, err := s.Events(context.Background(), "org_a", EventFilter{Ascending: true, Page: Page{Limit: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d events, want %d", len(got), len(cases))
	}
	for i, e := range got {
		if e.Fields != cases[i] {
			t.Errorf("event %d: fields %+v, want %+v", i, e.Fields, cases[i])
		}
		if !strings.HasPrefix(e.ID, "evt_") {
			t.Errorf("event %d: id %q", i, e.ID)
		}
	}
}

// A packed column the store did not write is an error, never fields read
// from the wrong bytes.
func TestUnpackColumnsRefusesDamage(t *testing.T) {
	whole := "-" + "16:" + strings.Repeat("\x00", 16) + "-" + "3:443" + "-------"
	if _, err := unpackColumns(whole, new(event.Fields)); err != nil {
		t.Fatalf("a well-formed column: %v", err)
	}
	for _, c := range []struct{ name, packed string }{
		{"empty", ""},
		{"too few values", "----------"},
		{"bytes left over", "-----------x"},
		{"no colon", "-16" + strings.Repeat("a", 16) + "---------"},
		{"length past the end", "-99:abc---------"},
		{"negative length", "--1:a---------"},
		{"address of 4 bytes", "-4:\x01\x02\x03\x04---------"},
		{"port zero", "---1:0-------"},
		{"port too big", "---5:70000-------"},
		{"port not a number", "---2:ab-------"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if id, err := unpackColumns(c.packed, new(event.Fields)); err == nil {
				t.Fatalf("accepted %q (legacy id %q)", c.packed, id)
			}
		})
	}
}
