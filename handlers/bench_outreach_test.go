package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/outreach"
)

// BenchmarkOutreach10k imports 10,000 prospects as CSV through the API, then
// runs msp-hunter over all of them (limit 10000), each timed on its own:
// import-s and hunt-s per iteration.
func BenchmarkOutreach10k(b *testing.B) {
	var csv strings.Builder
	csv.WriteString("company,domain,vertical,region,employees,contact_name,contact_email,contact_phone,notes\n")
	notes := []string{"", "ransomware last year", "no IT staff", "audit deadline in March", "hiring; new office", "has an IT team"}
	regions := []string{"Ohio", "Texas", "Oregon", "Maine"}
	for i := range 10000 {
		fmt.Fprintf(&csv, "Company %d,company%d.example,%s,%s,%d,Contact %d,c%d@company%d.example,+1 555 %04d,%s\n", i, i,
			outreach.Verticals[i%len(outreach.Verticals)], regions[i%len(regions)], 5+i%900, i, i, i, i%10000, notes[i%len(notes)])
	}
	body := csv.String()
	var importS, huntS float64
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b)
		admin := proOrg(b, e, "ann@acme.test", "Acme")
		b.StartTimer()
		start := time.Now()
		e.importCSV(admin.Token, body).Must(b, http.StatusCreated)
		importS += time.Since(start).Seconds()
		start = time.Now()
		run := e.runToEnd(admin.Token, "msp-hunter", map[string]any{"limit": 10000})
		huntS += time.Since(start).Seconds()
		if n := len(run.Get("output", "leads_created").List()); n != 10000 {
			b.Fatalf("%d leads", n)
		}
	}
	b.ReportMetric(importS/float64(b.N), "import-s")
	b.ReportMetric(huntS/float64(b.N), "hunt-s")
}
