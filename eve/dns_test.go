package eve

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// v1 (Suricata 3-4) over UDP: the answer leg is written server → client.
const (
	v1Query  = `{"timestamp":"2016-05-24T23:27:02.832606+0000","flow_id":5426,"event_type":"dns","src_ip":"10.16.1.11","src_port":49697,"dest_ip":"10.16.1.1","dest_port":53,"proto":"UDP","dns":{"type":"query","id":3407,"rrname":"Block.Dropbox.com.","rrtype":"A","tx_id":0}}`
	v1Ans1   = `{"timestamp":"2016-05-24T23:27:03.213624+0000","flow_id":5426,"pcap_cnt":5,"event_type":"dns","src_ip":"10.16.1.1","src_port":53,"dest_ip":"10.16.1.11","dest_port":49697,"proto":"UDP","dns":{"type":"answer","id":3407,"rcode":"NOERROR","rrname":"block.dropbox.com","rrtype":"CNAME","ttl":9,"rdata":"block.g1.dropbox.com"}}`
	v1Ans2   = `{"timestamp":"2016-05-24T23:27:03.213624+0000","flow_id":5426,"pcap_cnt":5,"event_type":"dns","src_ip":"10.16.1.1","src_port":53,"dest_ip":"10.16.1.11","dest_port":49697,"proto":"UDP","dns":{"type":"answer","id":3407,"rcode":"NOERROR","rrname":"block.g1.dropbox.com","rrtype":"A","ttl":8,"rdata":"45.58.70.33"}}`
	v1NXOnly = `{"timestamp":"2016-05-24T23:27:04.000000+0000","flow_id":6000,"event_type":"dns","src_ip":"10.16.1.1","src_port":53,"dest_ip":"10.16.1.12","dest_port":40000,"proto":"UDP","dns":{"type":"answer","id":77,"rcode":"NXDOMAIN","rrname":"No-Such.example.","rrtype":"AAAA"}}`
)

// v2 (Suricata 5-7): both legs written client → server; A and AAAA share an id.
const (
	v2QueryA    = `{"timestamp":"2021-06-06T16:26:27.431769+0200","flow_id":1567,"event_type":"dns","src_ip":"192.168.1.129","src_port":35790,"dest_ip":"192.168.1.1","dest_port":53,"proto":"UDP","dns":{"type":"query","id":2,"rrname":"www.google.com","rrtype":"A","tx_id":0}}`
	v2QueryAAAA = `{"timestamp":"2021-06-06T16:26:27.431775+0200","flow_id":1567,"event_type":"dns","src_ip":"192.168.1.129","src_port":35790,"dest_ip":"192.168.1.1","dest_port":53,"proto":"UDP","dns":{"type":"query","id":2,"rrname":"www.google.com","rrtype":"AAAA","tx_id":1}}`
	v2AnsAAAA   = `{"timestamp":"2021-06-06T16:26:27.442000+0200","flow_id":1567,"event_type":"dns","src_ip":"192.168.1.129","src_port":35790,"dest_ip":"192.168.1.1","dest_port":53,"proto":"UDP","dns":{"version":2,"type":"answer","id":2,"flags":"8183","qr":true,"rrname":"www.google.com","rrtype":"AAAA","rcode":"SERVFAIL"}}`
	v2AnsA      = `{"timestamp":"2021-06-06T16:26:27.442512+0200","flow_id":1567,"event_type":"dns","src_ip":"192.168.1.129","src_port":35790,"dest_ip":"192.168.1.1","dest_port":53,"proto":"UDP","dns":{"version":2,"type":"answer","id":2,"flags":"8180","qr":true,"rrname":"www.google.com","rrtype":"A","rcode":"NOERROR","answers":[{"rrname":"www.google.com","rrtype":"A","ttl":91,"rdata":"172.217.23.196"}]}}`
	v2Lonely    = `{"timestamp":"2021-06-06T16:30:00Z","flow_id":1999,"event_type":"dns","src_ip":"192.168.1.129","src_port":5353,"dest_ip":"224.0.0.251","dest_port":5353,"proto":"UDP","dns":{"version":2,"type":"answer","id":0,"rrname":"printer.local","rrtype":"PTR","rcode":"NOERROR"}}`
)

// v3 (Suricata 8): request/response, queries array, responder as src_ip.
const (
	v3Request  = `{"timestamp":"2025-01-10T08:00:00.000001Z","flow_id":42,"event_type":"dns","src_ip":"fd00::10","src_port":41000,"dest_ip":"2001:db8::53","dest_port":53,"proto":"UDP","dns":{"version":3,"type":"request","tx_id":0,"id":9,"rcode":"NOERROR","queries":[{"rrname":"www.suricata.io","rrtype":"A"}]}}`
	v3Response = `{"timestamp":"2025-01-10T08:00:00.020000Z","flow_id":42,"event_type":"dns","src_ip":"2001:db8::53","src_port":53,"dest_ip":"fd00::10","dest_port":41000,"proto":"UDP","dns":{"version":3,"type":"response","tx_id":0,"id":9,"rcode":"NXDOMAIN","queries":[{"rrname":"www.suricata.io","rrtype":"A"}]}}`
	v3Lonely   = `{"timestamp":"2025-01-10T08:00:01Z","flow_id":43,"event_type":"dns","src_ip":"2001:db8::53","src_port":53,"dest_ip":"fd00::11","dest_port":53,"proto":"UDP","dns":{"version":3,"type":"response","id":1,"rcode":"REFUSED","queries":[{"rrname":"x.example","rrtype":"MX"}]}}`
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestDNS(t *testing.T) {
	tests := []struct {
		name    string
		recs    []string
		want    []DNSQuery
		skipped int
	}{
		{
			name: "v1 request and multi-line answer",
			recs: []string{v1Query, v1Ans1, v1Ans2},
			want: []DNSQuery{{ts("2016-05-24T23:27:02.832606Z"), "10.16.1.11", "block.dropbox.com", "A", "NOERROR", 0}},
		},
		{
			name: "answer before request still pairs",
			recs: []string{v1Ans1, v1Ans2, v1Query},
			want: []DNSQuery{{ts("2016-05-24T23:27:02.832606Z"), "10.16.1.11", "block.dropbox.com", "A", "NOERROR", 0}},
		},
		{
			name: "request without answer",
			recs: []string{v1Query},
			want: []DNSQuery{{ts("2016-05-24T23:27:02.832606Z"), "10.16.1.11", "block.dropbox.com", "A", "", 0}},
		},
		{
			name: "unmatched v1 answer: client is dest (port 53 is src)",
			recs: []string{v1NXOnly},
			want: []DNSQuery{{ts("2016-05-24T23:27:04Z"), "10.16.1.12", "no-such.example", "AAAA", "NXDOMAIN", 0}},
		},
		{
			name: "v2 pairs by type when ids collide",
			recs: []string{v2QueryA, v2QueryAAAA, v2AnsAAAA, v2AnsA},
			want: []DNSQuery{
				{ts("2021-06-06T14:26:27.431769Z"), "192.168.1.129", "www.google.com", "A", "NOERROR", 0},
				{ts("2021-06-06T14:26:27.431775Z"), "192.168.1.129", "www.google.com", "AAAA", "SERVFAIL", 0},
			},
		},
		{
			name: "retransmitted response adds nothing",
			recs: []string{v2QueryA, v2AnsA, strings.Replace(v2AnsA, "442512", "642512", 1)},
			want: []DNSQuery{{ts("2021-06-06T14:26:27.431769Z"), "192.168.1.129", "www.google.com", "A", "NOERROR", 0}},
		},
		{
			name: "unmatched v2 answer, ports equal: client is src",
			recs: []string{v2Lonely},
			want: []DNSQuery{{ts("2021-06-06T16:30:00Z"), "192.168.1.129", "printer.local", "PTR", "NOERROR", 0}},
		},
		{
			name: "v3 request and response",
			recs: []string{v3Request, v3Response},
			want: []DNSQuery{{ts("2025-01-10T08:00:00.000001Z"), "fd00::10", "www.suricata.io", "A", "NXDOMAIN", 0}},
		},
		{
			name: "unmatched v3 response, ports equal: client is dest",
			recs: []string{v3Lonely},
			want: []DNSQuery{{ts("2025-01-10T08:00:01Z"), "fd00::11", "x.example", "MX", "REFUSED", 0}},
		},
		{
			name: "same id on another flow does not pair",
			recs: []string{v1Query, strings.Replace(v1Ans1, `"flow_id":5426`, `"flow_id":5427`, 1)},
			want: []DNSQuery{
				{ts("2016-05-24T23:27:02.832606Z"), "10.16.1.11", "block.dropbox.com", "A", "", 0},
				{ts("2016-05-24T23:27:03.213624Z"), "10.16.1.11", "block.dropbox.com", "CNAME", "NOERROR", 0},
			},
		},
		{
			name:    "unmatched answer naming nothing is skipped",
			recs:    []string{`{"timestamp":"2016-05-24T23:27:04Z","flow_id":1,"event_type":"dns","src_ip":"10.0.0.1","src_port":53,"dest_ip":"10.0.0.2","dest_port":999,"dns":{"type":"answer","id":1,"rcode":"SERVFAIL"}}`},
			skipped: 1,
		},
		{
			name:    "unknown dns.type is skipped",
			recs:    []string{`{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1","dns":{"type":"update","rrname":"x"}}`},
			skipped: 1,
		},
		{
			name: "root query",
			recs: []string{`{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1","dns":{"type":"query","id":1,"rrname":".","rrtype":"NS"}}`},
			want: []DNSQuery{{ts("2016-05-24T23:27:04Z"), "10.0.0.1", "<root>", "NS", "", 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustParse(t, strings.Join(tt.recs, "\n"))
			for i := range res.DNS {
				res.DNS[i].Line = 0 // lines are checked by TestLines
			}
			if !reflect.DeepEqual(res.DNS, tt.want) {
				t.Errorf("DNS =\n %+v\nwant\n %+v", res.DNS, tt.want)
			}
			if res.Skipped != tt.skipped || len(res.Events) != 0 {
				t.Errorf("skipped %d events %d, want %d and 0", res.Skipped, len(res.Events), tt.skipped)
			}
		})
	}
}

func TestDNSErrors(t *testing.T) {
	tests := []struct{ name, rec, wantErr string }{
		{"no dns object", `{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1"}`, "without a dns object"},
		{"no type", `{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1","dns":{"rrname":"x"}}`, "without dns.type"},
		{"request without name", `{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1","dns":{"type":"query","rrtype":"A"}}`, "without a query name"},
		{"v3 request, empty queries", `{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"10.0.0.1","dns":{"type":"request","queries":[]}}`, "without a query name"},
		{"request without client", `{"timestamp":"2016-05-24T23:27:04Z","event_type":"dns","src_ip":"nope","dns":{"type":"query","rrname":"x"}}`, "valid src_ip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.rec))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "Invalid request: line 1 is not") {
				t.Errorf("err = %v, want line 1 and %q", err, tt.wantErr)
			}
		})
	}
}
