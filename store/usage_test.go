package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// storedBytes is what the rows of an organization take by the SQL sums,
// which retention frees and migration 17 backfilled.
func storedBytes(t *testing.T, s *Store, org string) int64 {
	t.Helper()
	var n int64
	if err := s.reader.QueryRow(`SELECT (SELECT COALESCE(SUM(`+eventBytesSQL+`), 0) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1))
		+ (SELECT COALESCE(SUM(`+dnsBytesSQL+`), 0) FROM dns_queries WHERE org_id = ?1)`, org).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func usageOf(t *testing.T, s *Store, org string) Usage {
	t.Helper()
	u, err := s.Usage(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// sized is an event whose stored size is n bytes.
func sized(n int, at time.Time) NewEvent {
	e := NewEvent{Type: event.TypeThreat, Severity: event.Low, Timestamp: at, Source: "s", Asset: "a"}
	e.Message = string(make([]byte, n-int(eventBytes(e))))
	return e
}

func TestStorageQuota(t *testing.T) {
	ctx := context.Background()
	var disk int64 = 1 << 40
	s := openFoldingWith(t, Config{Path: filepath.Join(t.TempDir(), "g.db"),
		DefaultQuota: func(used int64) int64 { return (used + disk) / 2 }}, "org_a", "org_b")
	defer s.Close()
	if u := usageOf(t, s, "org_a"); u.Bytes != 0 || u.QuotaSet || u.Quota != disk/2 {
		t.Fatalf("a new organization: %+v", u)
	}
	if err := s.SetStorageQuota(ctx, "org_a", 10_000); err != nil {
		t.Fatal(err)
	}
	old := foldNow.Add(-48 * time.Hour)
	ingest(t, s, "org_a", sized(4000, old), sized(3000, old))
	dns := []DNSQuery{{Timestamp: old, Source: "zeek", Client: "10.0.0.5", Domain: "example.com", QType: "A", RCode: "NOERROR"}}
	if _, err := s.Ingest(ctx, "org_a", nil, dns); err != nil {
		t.Fatal(err)
	}
	want := int64(7000) + dnsBytes(dns[0])
	if u := usageOf(t, s, "org_a"); u.Bytes != want || u.Quota != 10_000 || !u.QuotaSet {
		t.Fatalf("after 7,000 bytes of events and a DNS query: %+v, want %d", u, want)
	}

	// A batch that would pass the quota is refused whole: nothing stored,
	// nothing counted; another organization is not held to it.
	var before int
	s.reader.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&before)
	_, err := s.Ingest(ctx, "org_a", []NewEvent{sized(1000, foldNow), sized(2500, foldNow)}, dns)
	if !errors.Is(err, ErrStorageQuota) {
		t.Fatalf("past the quota: %v", err)
	}
	var after int
	s.reader.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&after)
	if after != before || usageOf(t, s, "org_a").Bytes != want {
		t.Fatalf("a refused batch stored %d events, usage %+v", after-before, usageOf(t, s, "org_a"))
	}
	ingest(t, s, "org_b", sized(5000, foldNow))

	// Past 80%, the admins are told once.
	if _, err := s.writer.Exec(`INSERT INTO users (id, org_id, email, name, password_hash, created_at, email_verified_at) VALUES
		('usr_1', 'org_a', 'ann@a.test', 'Ann', 'x', 0, 1), ('usr_2', 'org_a', 'bob@a.test', 'Bob', 'x', 0, 1);
		INSERT INTO memberships (user_id, org_id, role, origin, created_at) VALUES
		('usr_1', 'org_a', 'admin', 'signup', 0), ('usr_2', 'org_a', 'member', 'invite', 0)`); err != nil {
		t.Fatal(err)
	}
	mails := func(u Usage, admins []string) []Mail {
		var out []Mail
		for _, a := range admins {
			out = append(out, Mail{To: a, Subject: fmt.Sprintf("%d of %d", u.Bytes, u.Quota)})
		}
		return out
	}
	ingest(t, s, "org_a", sized(1000, foldNow)) // 8,000 + the query: past 80%
	for i, wantWarned := range []bool{true, false} {
		warned, err := s.WarnStorage(ctx, "org_a", 0.8, mails)
		if err != nil || warned != wantWarned {
			t.Fatalf("warning %d: %v %v, want %v", i, warned, err, wantWarned)
		}
	}
	queued, _ := s.PendingMail(ctx, 10)
	if len(queued) != 1 || queued[0].To != "ann@a.test" {
		t.Fatalf("the warning went to %+v, want the one admin once", queued)
	}

	// Retention frees what it prunes; under 70% the warning is re-armed.
	foldAll(t, s)
	for {
		n, err := s.PruneEvents(ctx, foldNow, 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	u := usageOf(t, s, "org_a")
	if u.Bytes != storedBytes(t, s, "org_a") || u.Bytes >= 7000 || u.WarnedAt != nil {
		t.Fatalf("after pruning the old events: %+v, rows take %d", u, storedBytes(t, s, "org_a"))
	}
	if _, err := s.PruneDNS(ctx, foldNow, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if u := usageOf(t, s, "org_a"); u.Bytes != 1000 {
		t.Fatalf("after pruning the old query: %+v, want the 1,000 bytes of the new event", u)
	}

	// Back to the default share.
	if err := s.SetStorageQuota(ctx, "org_a", 0); err != nil {
		t.Fatal(err)
	}
	if u := usageOf(t, s, "org_a"); u.QuotaSet || u.Quota != (1000+disk)/2 {
		t.Fatalf("back on the default: %+v", u)
	}
	if err := s.SetStorageQuota(ctx, "org_none", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an organization that does not exist: %v", err)
	}
}

// The counter ingest keeps in Go equals the SQL sums over the rows, for
// events with details and DNS queries, and migration 17's backfill
// computes the same from the rows.
func TestStoredBytesAgree(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	var evs []NewEvent
	var dns []DNSQuery
	for i := range 50 {
		e := NewEvent{Type: event.Types[i%len(event.Types)], Severity: event.Medium, Timestamp: foldNow, Source: "suricata",
			Asset: fmt.Sprintf("ws-%d", i), Message: fmt.Sprintf("ET POLICY ünïcode %d", i), Indicator: "203.0.113.9"}
		if i%2 == 0 {
			e.Details = []byte(`{"src_ip":"10.0.0.1","signature":"ET Ω"}`)
		}
		evs = append(evs, e)
		dns = append(dns, DNSQuery{Timestamp: foldNow, Source: "zeek", Client: "10.0.0.1", Domain: fmt.Sprintf("d%d.example", i), QType: "AAAA", RCode: "NXDOMAIN", Category: "malware"})
	}
	if _, err := s.Ingest(context.Background(), "org_a", evs, dns); err != nil {
		t.Fatal(err)
	}
	charged := usageOf(t, s, "org_a").Bytes
	if rows := storedBytes(t, s, "org_a"); charged != rows || charged == 0 {
		t.Fatalf("charged %d, the rows take %d", charged, rows)
	}
	backfill := regexp.MustCompile(`(?s)INSERT INTO org_usage .*?GROUP BY org_id;`).FindString(realSchema(t))
	if backfill == "" {
		t.Fatal("migration 17's backfill is not in schema.sql")
	}
	// Since migration 26 the events table names its organization by number.
	backfill = strings.Replace(backfill, "AS n FROM events", "AS n FROM (SELECT e.*, n.org_id FROM events e JOIN org_numbers n ON n.num = e.org)", 1)
	if _, err := s.writer.Exec(`DELETE FROM org_usage; ` + backfill); err != nil {
		t.Fatal(err)
	}
	if got := usageOf(t, s, "org_a").Bytes; got != charged {
		t.Fatalf("the backfill counts %d, ingest charged %d", got, charged)
	}
}
