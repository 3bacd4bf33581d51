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

// Every column comes back from a page as stored, through the packed row:
// addresses whose bytes include NUL and 0xff, the ports' extremes, text
// holding the packing's own ":", "," and "-", NUL and several-byte
// characters, an empty indicator, no details, and a native event with
// none of the normalised fields.
func TestPackedRowRoundTrip(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	fields := []event.Fields{
		{},
		{SrcIP: netip.MustParseAddr("0.0.0.1"), DstIP: netip.MustParseAddr("255.255.255.255"), SrcPort: 1, DstPort: 65535},
		{SrcIP: netip.MustParseAddr("::"), DstIP: netip.MustParseAddr("ff02::1:ff00:0")},
		{User: "-", Process: ":", CommandLine: `cmd.exe /c "echo 12:- |"` + "\n\tnext", Host: "hôte-ünïcode", Rule: "1:2:3", Action: "-1"},
		{User: strings.Repeat("u", event.MaxFieldText), CommandLine: strings.Repeat("ç", event.MaxCommandLine/2)},
		{Action: "block"},
	}
	start := foldNow.Add(-time.Hour)
	var batch []NewEvent
	for i, f := range fields {
		batch = append(batch, NewEvent{Type: "activity", Severity: event.Severity(i % 5), Timestamp: start.Add(time.Duration(i) * time.Second),
			Source: "syslog", Asset: "h", Message: "m", Fields: f})
	}
	odd := NewEvent{Type: "policy_violation", Severity: event.Low, Timestamp: start.Add(-time.Hour), Source: "s-1,2", Asset: "-",
		Message: "12:ab,-\x00after NUL ✓", Indicator: "", Details: []byte(`{"k":"v:1,-"}`)}
	batch = append(batch, odd)
	ingest(t, s, "org_a", batch...)
	got, _, err := s.Events(context.Background(), "org_a", EventFilter{Ascending: true, Page: Page{Limit: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(batch) {
		t.Fatalf("%d events, want %d", len(got), len(batch))
	}
	first := got[0]
	if first.Type != odd.Type || first.Severity != odd.Severity || !first.Timestamp.Equal(odd.Timestamp) || first.Source != odd.Source ||
		first.Asset != odd.Asset || first.Message != odd.Message || first.Indicator != "" || string(first.Details) != string(odd.Details) ||
		first.AlertID != "" || first.Fields != (event.Fields{}) || first.ReceivedAt.IsZero() {
		t.Errorf("odd event read back as %+v", first)
	}
	for i, e := range got[1:] {
		if e.Fields != fields[i] || e.Details != nil || e.Severity != event.Severity(i%5) {
			t.Errorf("event %d: fields %+v details %q severity %v, want %+v, none, %v", i, e.Fields, e.Details, e.Severity, fields[i], event.Severity(i%5))
		}
		if !strings.HasPrefix(e.ID, "evt_") {
			t.Errorf("event %d: id %q", i, e.ID)
		}
	}
}

// A packed row the store did not write is an error, never an event read
// from the wrong bytes.
func TestUnpackEventRefusesDamage(t *testing.T) {
	const core = "1,1700000000000,1700000000001,4:auth3:ssh1:h1:m0:--"
	const rare = "-16:" + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x0a\x00\x00\x01" + "--3:443------"
	for _, ok := range []string{core, core + rare, "4,0,0,0:0:0:0:0:2:{}3:alr"} {
		if _, err := unpackEvent(ok, new(event.Event)); err != nil {
			t.Fatalf("a well-formed row %q: %v", ok, err)
		}
	}
	var e event.Event
	if _, err := unpackEvent(core+rare, &e); err != nil || e.Fields.SrcIP != netip.MustParseAddr("10.0.0.1") || e.Fields.DstPort != 443 {
		t.Fatalf("fields %+v, %v", e.Fields, err)
	}
	for _, c := range []struct{ name, packed string }{
		{"empty", ""},
		{"severity not a number", "x,1,1,4:auth3:ssh1:h1:m0:--"},
		{"severity out of range", "5,1,1,4:auth3:ssh1:h1:m0:--"},
		{"no time received", "1,1,4:auth3:ssh1:h1:m0:--"},
		{"text cut short", "1,1,1,4:auth3:ssh1:h"},
		{"length past the end", "1,1,1,40:auth3:ssh1:h1:m0:--"},
		{"no colon", "1,1,1,4auth3:ssh1:h1:m0:--"},
		{"negative length", "1,1,1,-1:a3:ssh1:h1:m0:--"},
		{"too few rare values", core + "----------"},
		{"bytes left over", core + "-----------x"},
		{"address of 4 bytes", core + "-4:\x01\x02\x03\x04---------"},
		{"port zero", core + "---1:0-------"},
		{"port too big", core + "---5:70000-------"},
		{"port not a number", core + "---2:ab-------"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if id, err := unpackEvent(c.packed, new(event.Event)); err == nil {
				t.Fatalf("accepted %q (legacy id %q)", c.packed, id)
			}
		})
	}
}
