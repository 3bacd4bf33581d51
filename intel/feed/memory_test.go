package feed

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeSyntheticNVD writes an NVD API page of n generated records (about
// 1.4 KB each, with v3.1 and v2 metrics, a weakness, a CPE range and
// tagged references). The record is a template with the CVE number
// substituted, so that generating costs little next to parsing.
func writeSyntheticNVD(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `{"resultsPerPage":%d,"startIndex":0,"totalResults":%d,"format":"NVD_CVE","version":"2.0","timestamp":"2024-10-25T01:15:13.497","vulnerabilities":[`, n, n)
	parts := strings.Split(`{"cve":{"id":"CVE-2024-#","sourceIdentifier":"cve@mitre.org","published":"2024-10-04T20:15:07.587","lastModified":"2024-10-17T15:19:32.803","vulnStatus":"Analyzed",`+
		`"descriptions":[{"lang":"en","value":"Synthetic record #: SQL injection in example product."},`+
		`{"lang":"es","value":"Registro sintético #: inyección SQL en el producto de ejemplo que permite a atacantes remotos leer la base de datos completa, incluidos los hashes de contraseñas de los usuarios."}],`+
		`"metrics":{"cvssMetricV31":[{"source":"nvd@nist.gov","type":"Primary","cvssData":{"version":"3.1","vectorString":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N","baseScore":9.1,"baseSeverity":"CRITICAL"},"exploitabilityScore":3.9,"impactScore":5.2}],`+
		`"cvssMetricV2":[{"source":"nvd@nist.gov","type":"Primary","cvssData":{"version":"2.0","vectorString":"AV:N/AC:L/Au:N/C:P/I:P/A:N","baseScore":6.4},"baseSeverity":"MEDIUM"}]},`+
		`"weaknesses":[{"source":"nvd@nist.gov","type":"Primary","description":[{"lang":"en","value":"CWE-89"}]}],`+
		`"configurations":[{"nodes":[{"operator":"OR","negate":false,"cpeMatch":[{"vulnerable":true,"criteria":"cpe:2.3:a:example:product#:*:*:*:*:*:*:*:*","versionStartIncluding":"1.2.0","versionEndExcluding":"1.2.#"}]}]}],`+
		`"references":[{"url":"https://example.com/advisory/#","tags":["Vendor Advisory","Patch"]},{"url":"https://example.com/poc/#","tags":["Exploit"]}]}}`, "#")
	var num []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteString(",\n")
		}
		num = strconv.AppendInt(num[:0], int64(10000+i), 10)
		for j, part := range parts {
			if j > 0 {
				bw.Write(num)
			}
			bw.WriteString(part)
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// TestMemoryBounded streams 50,000 generated NVD records (~70 MB, more than
// the 64 MiB bound) through an io.Pipe and checks that the heap in use stays
// under 64 MiB: records are decoded one at a time, nothing accumulates.
// Under the race detector (10x slower) it streams 10,000.
func TestMemoryBounded(t *testing.T) {
	n := 50000
	if raceEnabled {
		n = 10000
	}
	const limit = 64 << 20
	pr, pw := io.Pipe()
	var written int64
	go func() {
		cw := &countWriter{w: pw}
		err := writeSyntheticNVD(cw, n)
		written = cw.n
		pw.CloseWithError(err)
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak {
			peak = ms.HeapInuse
		}
	}
	start := time.Now()
	count := 0
	sum, err := Parse(NVD, pr, Handler{CVE: func(c CVE) error {
		count++
		if count%2500 == 0 {
			sample()
		}
		if len(c.Metrics) != 2 || len(c.CPEMatches) != 1 || len(c.References) != 2 {
			return fmt.Errorf("record %s not normalized: %+v", c.ID, c)
		}
		return nil
	}})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != n || count != n {
		t.Fatalf("%d records (%d calls), want %d", sum.Records, count, n)
	}
	t.Logf("%d records, %.1f MB in %v (%.0f records/s); heap in use: %.1f MiB before, peak %.1f MiB during the parse",
		n, float64(written)/1e6, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), float64(base)/(1<<20), float64(peak)/(1<<20))
	if peak > limit {
		t.Fatalf("heap in use peaked at %d bytes, want < %d", peak, limit)
	}
	if !raceEnabled && written < limit {
		t.Fatalf("only %d bytes streamed", written)
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
