package feed

import (
	"bytes"
	"encoding/json"
	"testing"
)

// replicateNVD builds an NVD page holding the records of the testdata slice
// copies times over.
func replicateNVD(tb testing.TB, copies int) ([]byte, int) {
	var page struct {
		Vulnerabilities []json.RawMessage `json:"vulnerabilities"`
	}
	if err := json.Unmarshal(readTestdata(tb, "nvd_sample.json"), &page); err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(`{"resultsPerPage":2000,"startIndex":0,"totalResults":2000,"format":"NVD_CVE","version":"2.0","timestamp":"2024-10-25T01:15:13.497","vulnerabilities":[`)
	n := 0
	for i := 0; i < copies; i++ {
		for _, r := range page.Vulnerabilities {
			if n > 0 {
				b.WriteString(",\n")
			}
			b.Write(r)
			n++
		}
	}
	b.WriteString("]}\n")
	return b.Bytes(), n
}

// BenchmarkParseNVD parses the 20-record testdata slice replicated 100 times
// (2,000 records, ~6.5 MB) from memory, normalizing every record.
func BenchmarkParseNVD(b *testing.B) {
	data, n := replicateNVD(b, 100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sum, err := Parse(NVD, bytes.NewReader(data), Handler{CVE: func(CVE) error { return nil }})
		if err != nil || sum.Records != n {
			b.Fatal(sum, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
