package store

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"garrison/event"
)

// An event is read as two columns, its seq and the rest of its row packed
// into one string by SQLite: every column read is a call into SQLite
// under its connection mutex and a string of its own, and a page read
// twelve or more of them per row. The packed row is the severity, time
// and time received as decimals, each followed by ",", then each text
// column as its length in bytes, ":" and its bytes ("-" for NULL), and,
// unless all of them are NULL, the columns most events leave NULL: the
// id stored before ids were derived and the normalised fields (an
// address as its 16 raw bytes, a port as its digits). The strings of an
// event read this way share the packed string's memory.

// packedText are the text columns every event has, in packing order.
var packedText = []string{"type", "source", "asset", "message", "indicator", "details", "alert_id"}

// packedRare are the columns an event leaves NULL unless it has them.
var packedRare = []string{"legacy_id", "src_ip", "dst_ip", "src_port", "dst_port", "user_name", "process", "command_line", "host", "rule", "action"}

// eventColumns reads an event as eventIDs.scan takes it (not its
// organization: every query is of one organization's events), on the
// store's engine.
func (s *Store) eventColumns() string {
	if s.pg {
		return eventColumnsPostgres
	}
	return eventColumnsSQLite
}

// eventColumnsSQLite packs the row in SQLite. concat() builds it in one
// pass; a chain of || copied the row so far at every step, a kilobyte of
// details a dozen times.
var eventColumnsSQLite = func() string {
	value := func(c string) string { return "COALESCE(octet_length(" + c + ") || ':', '-'), " + c }
	parts := []string{"severity", "','", "ts", "','", "received_at", "','"}
	for _, c := range packedText {
		parts = append(parts, value(c))
	}
	var rare []string
	for _, c := range packedRare {
		rare = append(rare, value(c))
	}
	parts = append(parts, "CASE WHEN COALESCE("+strings.Join(packedRare, ", ")+") IS NOT NULL THEN concat("+
		strings.Join(rare, ", ")+") END")
	return "seq, concat(" + strings.Join(parts, ", ") + ")"
}()

// eventColumnsPostgres packs the same row in PostgreSQL, whose text holds
// no NUL byte and whose COALESCE takes one type: an address is its 32
// hexadecimal digits (unpackEvent takes either form), a port its digits.
var eventColumnsPostgres = func() string {
	value := func(c string) string {
		switch c {
		case "src_ip", "dst_ip":
			c = "encode(" + c + ", 'hex')"
		case "src_port", "dst_port":
			c = "CAST(" + c + " AS TEXT)"
		}
		return "COALESCE(octet_length(" + c + ") || ':', '-'), " + c
	}
	parts := []string{"severity", "','", "ts", "','", "received_at", "','"}
	for _, c := range packedText {
		parts = append(parts, value(c))
	}
	var rare, present []string
	for _, c := range packedRare {
		rare = append(rare, value(c))
		present = append(present, c+" IS NOT NULL")
	}
	parts = append(parts, "CASE WHEN "+strings.Join(present, " OR ")+" THEN concat("+strings.Join(rare, ", ")+") END")
	return "seq, concat(" + strings.Join(parts, ", ") + ")"
}()

// eventColumnCount is the number of eventColumns.
const eventColumnCount = 2

// packedRow reads a packed row from its start.
type packedRow struct {
	rest  string
	whole int
}

func (r *packedRow) fail(what string) error {
	return fmt.Errorf("packed event row: %s at byte %d", what, r.whole-len(r.rest))
}

// number reads a decimal and the "," after it.
func (r *packedRow) number(name string) (int64, error) {
	comma := strings.IndexByte(r.rest, ',')
	if comma < 0 {
		return 0, r.fail(name + " without its comma")
	}
	n, err := strconv.ParseInt(r.rest[:comma], 10, 64)
	if err != nil {
		return 0, r.fail(name + " not a number")
	}
	r.rest = r.rest[comma+1:]
	return n, nil
}

// value reads one column: its bytes and whether it is not NULL.
func (r *packedRow) value(name string) (string, bool, error) {
	if strings.HasPrefix(r.rest, "-") {
		r.rest = r.rest[1:]
		return "", false, nil
	}
	colon := strings.IndexByte(r.rest, ':')
	if colon < 0 {
		return "", false, r.fail(name + " without its length")
	}
	n, err := strconv.Atoi(r.rest[:colon])
	if err != nil || n < 0 || n > len(r.rest)-colon-1 {
		return "", false, r.fail(name + " of a bad length")
	}
	v := r.rest[colon+1 : colon+1+n]
	r.rest = r.rest[colon+1+n:]
	return v, true, nil
}

// unpackEvent reads a packed row into e, returning the id it was stored
// with before ids were derived ("" for none).
func unpackEvent(packed string, e *event.Event) (legacyID string, err error) {
	r := packedRow{rest: packed, whole: len(packed)}
	var sev, ts, received int64
	if sev, err = r.number("severity"); err != nil {
		return "", err
	}
	if ts, err = r.number("ts"); err != nil {
		return "", err
	}
	if received, err = r.number("received_at"); err != nil {
		return "", err
	}
	if sev < int64(event.Info) || sev > int64(event.Critical) {
		return "", r.fail("severity out of range")
	}
	e.Severity, e.Timestamp, e.ReceivedAt = event.Severity(sev), fromMS(ts), fromMS(received)
	var text [7]string
	var hasDetails bool
	for i, name := range packedText {
		v, ok, err := r.value(name)
		if err != nil {
			return "", err
		}
		text[i] = v
		if name == "details" {
			hasDetails = ok
		}
	}
	e.Type, e.Source, e.Asset, e.Message, e.Indicator, e.AlertID = text[0], text[1], text[2], text[3], text[4], text[6]
	if hasDetails {
		e.Details = []byte(text[5])
	}
	if r.rest == "" {
		return "", nil
	}
	var rare [11]string
	for i, name := range packedRare {
		v, ok, err := r.value(name)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		switch name {
		case "src_ip", "dst_ip":
			if len(v) == 32 { // PostgreSQL's hexadecimal
				raw, err := hex.DecodeString(v)
				if err != nil {
					return "", r.fail(name + " not hexadecimal")
				}
				v = string(raw)
			}
			if len(v) != 16 {
				return "", r.fail(fmt.Sprintf("%s of %d bytes", name, len(v)))
			}
		case "src_port", "dst_port":
			if p, err := strconv.ParseUint(v, 10, 16); err != nil || p == 0 {
				return "", r.fail(name + " not a port")
			}
		}
		rare[i] = v
	}
	if r.rest != "" {
		return "", r.fail("bytes left over")
	}
	addr := func(v string) netip.Addr {
		if v == "" {
			return netip.Addr{}
		}
		return netip.AddrFrom16([16]byte([]byte(v))).Unmap()
	}
	port := func(v string) uint16 {
		p, _ := strconv.ParseUint(v, 10, 16) // checked above
		return uint16(p)
	}
	e.Fields = event.Fields{SrcIP: addr(rare[1]), DstIP: addr(rare[2]), SrcPort: port(rare[3]), DstPort: port(rare[4]),
		User: rare[5], Process: rare[6], CommandLine: rare[7], Host: rare[8], Rule: rare[9], Action: rare[10]}
	return rare[0], nil
}
