// Package ingest turns the bodies sensors send into what the store keeps:
// native JSON (one event, {"events":[…]}, or {"events":[…],"dns":[…]}) and
// Suricata EVE JSON (lines or an array, parsed by package eve). It knows no
// HTTP: its functions take bytes and a clock.
//
// A body is all or nothing: any bad record refuses the whole body with a
// *valid.Error naming each bad field (events[3].severity, dns[0].client,
// line 12), and nothing is stored. Bodies are read in one pass without
// materialising their entries first, so a body of millions of empty
// objects is refused at entry MaxRecords+1 having allocated nothing for
// them.
package ingest
