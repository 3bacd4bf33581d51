package handlers_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hugeNVD is a gzipped NVD page of n CVE records (CVE-2024-10000 on), each
// with a description of size bytes; one more record has a reference URL
// over its cap, and one an id of 1 MiB.
func hugeNVD(t testing.TB, n, size int) []byte {
	desc := strings.Repeat("A flaw lets a remote attacker run code. ", size/40+1)[:size]
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	fmt.Fprint(zw, `{"format":"NVD_CVE","version":"2.0","vulnerabilities":[`)
	record := func(id, description, url string) {
		fmt.Fprintf(zw, `{"cve":{"id":%q,"published":"2024-03-01T10:00:00.000","lastModified":"2024-06-01T10:00:00.000","vulnStatus":"Analyzed",`+
			`"descriptions":[{"lang":"en","value":"%s"}],"metrics":{"cvssMetricV31":[{"source":"nvd@nist.gov","type":"Primary",`+
			`"cvssData":{"version":"3.1","vectorString":%q,"baseScore":9.8,"baseSeverity":"CRITICAL"}}]},`+
			`"references":[{"url":%q,"tags":["Patch"]}]}},`, id, description, critical, url)
	}
	for i := range n {
		record(fmt.Sprint("CVE-2024-", 10000+i), desc, "https://example.com/advisory")
	}
	record("CVE-2024-20000", "A flaw.", "https://example.com/"+strings.Repeat("u", 4<<10))
	record("CVE-2024-"+strings.Repeat("1", 1<<20), "A flaw.", "https://example.com/advisory")
	fmt.Fprint(zw, `{"cve":{"id":"CVE-2024-20001","descriptions":[{"lang":"en","value":"A flaw."}]}}]}`)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue 28: 20 CVE records with 15 MiB descriptions cost 675 MiB to
// import and made GET /cve-watchlist?limit=200 a 300 MiB answer. Each
// record is now cut as it is parsed, the import says what was cut and
// refused, and the watchlist and the dashboard answer in a few KiB. (Under
// the race detector, ten times slower, the descriptions are of 1 MiB.)
func TestHugeIntelRecordsAreCut(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 300 MiB of descriptions")
	}
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	const n = 20
	size, sizeWords := 15<<20, "15.0 MiB"
	if raceEnabled {
		size, sizeWords = 1<<20, "1.0 MiB"
	}
	imp := e.importIntel(admin.Token, hugeNVD(t, n, size)).Must(t, http.StatusOK).Get("data")
	if imp.Get("records").Int() != n+2 || imp.Get("added").Int() != n+2 || imp.Get("skipped").Int() != 1 || imp.Get("cut").Int() != n+1 {
		t.Fatalf("import: %v", imp)
	}
	cuts := imp.Get("cuts").MustList(t)
	for i, c := range cuts[:n] {
		if c.Get("id").Str() != fmt.Sprint("CVE-2024-", 10000+i) || c.Get("message").Str() != "description cut from "+sizeWords+" to 8.0 KiB" {
			t.Fatalf("cut %d: %v", i, c)
		}
	}
	if c := cuts[n]; c.Get("id").Str() != "CVE-2024-20000" || c.Get("message").Str() != "1 reference left out: a URL over 2.0 KiB" {
		t.Fatalf("the reference's cut: %v", c)
	}
	prob := imp.Get("problems", "0")
	if id, msg := prob.Get("id").Str(), prob.Get("message").Str(); len(id) > 64 || len(msg) > 300 || !strings.HasPrefix(msg, "invalid CVE id") {
		t.Fatalf("the refused record: id of %d bytes, %q", len(id), msg)
	}

	for i := range n {
		e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": fmt.Sprint("CVE-2024-", 10000+i)}).Must(t, http.StatusCreated)
	}
	list := e.Do("GET", "/api/cve-watchlist?limit=200", admin.Token, nil).Must(t, http.StatusOK)
	if len(list.Raw) > 256<<10 {
		t.Fatalf("the watchlist answered %d bytes", len(list.Raw))
	}
	entries := list.Get("data").MustList(t)
	if len(entries) != n {
		t.Fatalf("%d entries", len(entries))
	}
	for _, en := range entries {
		d := en.Get("description").MustStr(t)
		if len(d) > 8<<10 || !strings.HasSuffix(d, "… [truncated from "+sizeWords+"]") || !strings.HasPrefix(d, "A flaw lets") {
			t.Fatalf("%s: description of %d bytes ending %q", en.Get("cve_id").Str(), len(d), d[max(0, len(d)-40):])
		}
	}
	ov := e.Do("GET", "/api/dashboard/overview", admin.Token, nil).Must(t, http.StatusOK)
	if len(ov.Raw) > 256<<10 {
		t.Fatalf("the overview answered %d bytes", len(ov.Raw))
	}
}

// A list's page ends once its items take 4 MiB, and next_offset leads to
// the rest: 250 events of 22 KiB as JSON (a 4 KiB message, half of it tabs
// written \t, and 16 KiB of details) take more than a page at limit=200,
// every event on one of them.
func TestListPagesEndAt4MiB(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	now := e.Clock.Now()
	details := map[string]any{"payload": strings.Repeat("d", 16<<10-20)}
	var events []map[string]any
	for i := range 250 {
		m := ev(e, "threat_detected", "low", "ws-01.acme.local", fmt.Sprintf("%03d ", i)+strings.Repeat("m\t", 2000), now.Add(-time.Duration(i)*time.Second))
		m["details"] = details
		events = append(events, m)
	}
	e.ingest(key, events...).Must(t, http.StatusCreated)
	seen := map[string]bool{}
	pages, offset := 0, 0
	for {
		page := e.Do("GET", fmt.Sprintf("/api/events?limit=200&offset=%d", offset), admin.Token, nil).Must(t, http.StatusOK)
		pages++
		items := page.Get("data").MustList(t)
		if len(page.Raw) > 4<<20+64<<10 || len(items) == 0 {
			t.Fatalf("page %d: %d events in %d bytes", pages, len(items), len(page.Raw))
		}
		for _, it := range items {
			seen[it.Get("id").MustStr(t)] = true
		}
		pg := page.Get("pagination")
		if pg.Get("total").Int() != 250 || pg.Get("limit").Int() != 200 || pg.Get("offset").Int() != offset {
			t.Fatalf("pagination %v", pg)
		}
		if pg.Get("next_offset").IsNull() {
			break
		}
		if next := pg.Get("next_offset").Int(); next != offset+len(items) {
			t.Fatalf("next_offset %d after %d events from %d", next, len(items), offset)
		}
		offset += len(items)
		if pages == 1 && len(items) == 200 {
			t.Fatalf("the first page held all 200 events (%d bytes)", len(page.Raw))
		}
	}
	if len(seen) != 250 || pages < 2 {
		t.Fatalf("%d events over %d pages", len(seen), pages)
	}

	// A list answered by encoding/json ends the same way: assets of about
	// 1 MiB each (900 programs with long CPE names), four to a page.
	for i := range 6 {
		var sw []map[string]any
		for j := range 900 {
			sw = append(sw, map[string]any{"vendor": "acme", "product": fmt.Sprint("p", j), "version": "1.0",
				"cpe": "cpe:2.3:a:acme:" + strings.Repeat("p", 900) + fmt.Sprint(j) + ":1.0:*:*:*:*:*:*:*"})
		}
		e.Do("POST", "/api/assets", admin.Token, map[string]any{"hostname": fmt.Sprint("host-", i), "software": sw}).Must(t, http.StatusCreated)
	}
	page := e.Do("GET", "/api/assets?limit=200", admin.Token, nil).Must(t, http.StatusOK)
	items := page.Get("data").MustList(t)
	if len(items) == 0 || len(items) >= 6 || len(page.Raw) > 4<<20+64<<10 || page.Get("pagination", "next_offset").Int() != len(items) {
		t.Fatalf("%d assets in %d bytes, pagination %v", len(items), len(page.Raw), page.Get("pagination"))
	}
}
