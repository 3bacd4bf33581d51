package event

import (
	"net/netip"
)

// Fields are the normalised fields every source's records are read into,
// so that one search finds an address or a user whatever sensor saw it.
// The zero value of each is "not given".
type Fields struct {
	SrcIP, DstIP     netip.Addr
	SrcPort, DstPort uint16
	User             string
	Process          string // the program's path or name
	CommandLine      string
	Host             string // the host that wrote the record (a device's own name)
	Rule             string // the rule or signature that fired
	Action           string // what the device did: allow, block, fail, success …
}

// Bounds of the text fields, in bytes.
const (
	MaxFieldText   = 512
	MaxCommandLine = 4096
	// MaxOriginal is how much of a record as it was received is kept.
	MaxOriginal = 8 << 10
)

// IsZero reports whether no field is given.
func (f Fields) IsZero() bool { return f == Fields{} }
