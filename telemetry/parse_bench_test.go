package telemetry

import (
	"testing"
)

// The parsers' own cost per record, beside what storing costs:
// go test -run XXX -bench Parse -benchmem ./telemetry
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct{ name, format, file string }{
		{"syslog auth.log", FormatSyslog, "testdata/syslog/auth/ubuntu_ec2_auth.log"},
		{"windows nxlog", FormatWindows, "testdata/windows/otrf_security_events.jsonl"},
		{"zeek conn tsv", FormatZeek, "testdata/zeek/tsv/conn.log"},
	} {
		body := read(b, c.file)
		b.Run(c.name, func(b *testing.B) {
			records := 0
			for b.Loop() {
				res, _ := Parse(c.format, body, now)
				records = len(res.Records)
			}
			b.ReportMetric(float64(records*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
