package alerting

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestLogons(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC)
	signIn := func(action, user, from string, minute int) Event {
		return Event{Asset: "bastion", Action: action, User: user, SrcIP: netip.MustParseAddr(from), Time: t0.Add(time.Duration(minute) * time.Minute)}
	}
	type step struct {
		e        Event
		commit   bool   // commit after this step (else at the end)
		rollback bool   // forget the steps since the last commit
		fires    string // the title's start when it raises
	}
	fail, ok := LogonFailure, LogonSuccess
	cases := []struct {
		name  string
		steps []step
	}{
		{"five then success", []step{{e: signIn(fail, "alice", "198.51.100.1", 0)}, {e: signIn(fail, "alice", "198.51.100.2", 1)},
			{e: signIn(fail, "alice", "198.51.100.3", 2)}, {e: signIn(fail, "Alice", "198.51.100.4", 3)}, {e: signIn(fail, "alice", "198.51.100.5", 4)},
			{e: signIn(ok, "alice", "198.51.100.6", 5), fires: "Successful sign-in after 5 failed ones for account alice on bastion"}}},
		{"four then success", []step{{e: signIn(fail, "bob", "198.51.100.1", 0)}, {e: signIn(fail, "bob", "198.51.100.1", 1)},
			{e: signIn(fail, "bob", "198.51.100.1", 2)}, {e: signIn(fail, "bob", "198.51.100.1", 3)}, {e: signIn(ok, "bob", "198.51.100.1", 4)}}},
		{"across commits", []step{{e: signIn(fail, "carol", "198.51.100.1", 0)}, {e: signIn(fail, "carol", "198.51.100.2", 1), commit: true},
			{e: signIn(fail, "carol", "198.51.100.3", 2)}, {e: signIn(fail, "carol", "198.51.100.4", 3), commit: true},
			{e: signIn(fail, "carol", "198.51.100.5", 4)}, {e: signIn(ok, "carol", "198.51.100.6", 5), fires: "Successful sign-in after 5"}}},
		{"rolled back failures do not count", []step{{e: signIn(fail, "dan", "198.51.100.1", 0)}, {e: signIn(fail, "dan", "198.51.100.2", 1)},
			{e: signIn(fail, "dan", "198.51.100.3", 2), rollback: true}, {e: signIn(fail, "dan", "198.51.100.4", 3)},
			{e: signIn(fail, "dan", "198.51.100.5", 4)}, {e: signIn(ok, "dan", "198.51.100.6", 5)}}},
		{"out of the window", []step{{e: signIn(fail, "erin", "198.51.100.1", 0)}, {e: signIn(fail, "erin", "198.51.100.2", 1)},
			{e: signIn(fail, "erin", "198.51.100.3", 2)}, {e: signIn(fail, "erin", "198.51.100.4", 3)}, {e: signIn(fail, "erin", "198.51.100.5", 4)},
			{e: signIn(ok, "erin", "198.51.100.6", 15)}}},
		{"one address, many accounts", []step{{e: signIn(fail, "root", "192.0.2.66", 0)}, {e: signIn(fail, "admin", "192.0.2.66", 1)},
			{e: signIn(fail, "oracle", "192.0.2.66", 2)}, {e: signIn(fail, "test", "192.0.2.66", 3)}, {e: signIn(fail, "pi", "192.0.2.66", 4)},
			{e: signIn(ok, "deploy", "192.0.2.66", 5), fires: "Successful sign-in after 5 failed ones for address 192.0.2.66 (account deploy) on bastion"}}},
		{"out of order across bodies", []step{{e: signIn(fail, "gus", "198.51.100.1", 2)}, {e: signIn(fail, "gus", "198.51.100.2", 3)},
			{e: signIn(fail, "gus", "198.51.100.3", 4), commit: true}, {e: signIn(fail, "gus", "198.51.100.4", 2)},
			{e: signIn(fail, "gus", "198.51.100.5", 3)}, {e: signIn(ok, "gus", "198.51.100.6", 4), fires: "Successful sign-in after 5"}}},
		{"failures after the success do not count", []step{{e: signIn(fail, "hal", "198.51.100.1", 6)}, {e: signIn(fail, "hal", "198.51.100.1", 7)},
			{e: signIn(fail, "hal", "198.51.100.1", 8)}, {e: signIn(fail, "hal", "198.51.100.1", 9)}, {e: signIn(fail, "hal", "198.51.100.1", 10)},
			{e: signIn(ok, "hal", "198.51.100.1", 5)}}},
		{"a record with a wrong clock prunes nothing", []step{{e: signIn(fail, "ivy", "198.51.100.1", 0)}, {e: signIn(fail, "ivy", "198.51.100.2", 1)},
			{e: signIn(fail, "other", "203.0.113.1", 120), commit: true}, {e: signIn(fail, "ivy", "198.51.100.3", 2)}, {e: signIn(fail, "ivy", "198.51.100.4", 3)},
			{e: signIn(fail, "ivy", "198.51.100.5", 4)}, {e: signIn(ok, "ivy", "198.51.100.6", 5), fires: "Successful sign-in after 5"}}},
		{"spent for the address too", []step{{e: signIn(fail, "jo", "192.0.2.9", 0)}, {e: signIn(fail, "jo", "192.0.2.9", 1)},
			{e: signIn(fail, "jo", "192.0.2.9", 2)}, {e: signIn(fail, "jo", "192.0.2.9", 3)}, {e: signIn(fail, "jo", "192.0.2.9", 4)},
			{e: signIn(ok, "jo", "192.0.2.9", 5), fires: "Successful sign-in after 5 failed ones for account jo"}, {e: signIn(ok, "kim", "192.0.2.9", 6)}}},
		{"loopback is no address", []step{{e: signIn(fail, "a", "127.0.0.1", 0)}, {e: signIn(fail, "b", "127.0.0.1", 1)},
			{e: signIn(fail, "c", "127.0.0.1", 2)}, {e: signIn(fail, "d", "127.0.0.1", 3)}, {e: signIn(fail, "e", "127.0.0.1", 4)},
			{e: signIn(ok, "f", "127.0.0.1", 5)}}},
		{"spent once fired", []step{{e: signIn(fail, "fay", "198.51.100.1", 0)}, {e: signIn(fail, "fay", "198.51.100.2", 0)},
			{e: signIn(fail, "fay", "198.51.100.3", 0)}, {e: signIn(fail, "fay", "198.51.100.4", 0)}, {e: signIn(fail, "fay", "198.51.100.5", 0)},
			{e: signIn(ok, "fay", "198.51.100.6", 1), fires: "Successful sign-in after 5"}, {e: signIn(ok, "fay", "198.51.100.7", 2)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLogons(100)
			for i, s := range c.steps {
				spec, fired := l.Observe(s.e)
				if fired != (s.fires != "") || fired && !strings.HasPrefix(spec.Title, s.fires) {
					t.Fatalf("step %d: fired %v %q, want %q", i, fired, spec.Title, s.fires)
				}
				if s.commit {
					l.Commit()
				}
				if s.rollback {
					l.Rollback()
				}
			}
		})
	}
}
