package eve

import (
	"encoding/json"
	"errors"
	"net/netip"
	"time"
)

// dnsLeg is one dns record: a request, or (part of) a response.
type dnsLeg struct {
	line     int
	ts       time.Time
	key      string // flow and DNS id: what pairs a response with its request
	group    string // responses only: one response, which v1 logs as one line per RR
	request  bool
	answered bool // requests only: a response filled rcode
	client   string
	domain   string // "" when a response names no question
	qtype    string
	rcode    string
}

// dnsLegOf reads a dns record. ok=false means a dns.type Garrison does not
// use; it is counted as skipped.
func dnsLegOf(r record, ts time.Time) (leg dnsLeg, ok bool, err error) {
	d, ok := r.obj("dns")
	if !ok {
		return dnsLeg{}, false, errors.New("dns record without a dns object")
	}
	typ, ok := d["type"].(string)
	if !ok {
		return dnsLeg{}, false, errors.New("dns record without dns.type")
	}
	name, qtype, named := question(d)
	leg = dnsLeg{ts: ts, key: flowKey(r) + "/" + idOf(d), qtype: clean(qtype, 32)}
	if named {
		leg.domain = normDomain(name)
	}
	switch typ {
	case "query", "request": // "request" is the v3 (Suricata 8) name
		if !named {
			return dnsLeg{}, false, errors.New("dns request without a query name (rrname)")
		}
		src := r.addr("src_ip")
		if !src.IsValid() {
			return dnsLeg{}, false, errors.New("dns request without a valid src_ip")
		}
		leg.request, leg.client = true, src.String()
	case "answer", "response", "authority":
		leg.rcode = clean(d.str("rcode"), 32)
		leg.client = addrString(answerClient(r, d))
		leg.group = leg.key + "@" + ts.Format(time.RFC3339Nano) + "#" + numText(r["pcap_cnt"])
	default:
		return dnsLeg{}, false, nil
	}
	return leg, true, nil
}

// question finds the query name and type: dns.rrname/rrtype (v1, v2),
// dns.queries[0] (v3), or dns.query[0] (the dns object of v2 alerts). For
// a v1 answer line rrname is the name of that RR, usually the question.
func question(d record) (name, qtype string, ok bool) {
	if name, ok := d["rrname"].(string); ok {
		return name, d.str("rrtype"), true
	}
	for _, key := range [...]string{"queries", "query"} {
		list, _ := d[key].([]any)
		if len(list) == 0 {
			continue
		}
		q, _ := list[0].(map[string]any)
		if name, ok := q["rrname"].(string); ok {
			return name, record(q).str("rrtype"), true
		}
	}
	return "", "", false
}

// dnsName is the normalized query name of a record's dns object, or "".
func dnsName(r record) string {
	d, ok := r.obj("dns")
	if !ok {
		return ""
	}
	name, _, ok := question(d)
	if !ok {
		return ""
	}
	return normDomain(name)
}

// answerClient finds who asked, on a response record. Suricata has written
// responses three ways: v1 over UDP with the responder as src_ip, v1 over
// TCP and v2 with the flow's client as src_ip, v3 with the responder as
// src_ip again. The port 53 side is the server whenever the ports tell;
// otherwise the logging version decides.
func answerClient(r, d record) netip.Addr {
	src, dst := r.addr("src_ip"), r.addr("dest_ip")
	sp, sok := r.port("src_port")
	dp, dok := r.port("dest_port")
	switch {
	case sok && dok && sp == 53 && dp != 53:
		return dst
	case sok && dok && dp == 53 && sp != 53:
		return src
	}
	if v, _ := d.int("version"); v == 2 {
		return src
	}
	return dst
}

// flowKey identifies the flow: flow_id when present, else the unordered
// address/port pair and protocol.
func flowKey(r record) string {
	if n, ok := r["flow_id"].(json.Number); ok {
		return "f" + string(n)
	}
	sp, sok := r.port("src_port")
	dp, dok := r.port("dest_port")
	a := endpoint(r.addr("src_ip"), sp, sok)
	b := endpoint(r.addr("dest_ip"), dp, dok)
	if b < a {
		a, b = b, a
	}
	return "t" + clean(r.str("proto"), 32) + " " + a + " " + b
}

func idOf(d record) string { return numText(d["id"]) }

func numText(v any) string {
	n, _ := v.(json.Number)
	return string(n)
}

// pairDNS turns dns legs into DNS queries. Every request yields one query;
// a response fills the RCode of the first unanswered request with the same
// flow and DNS id, preferring the same name and type, then the same name,
// then any. A response with no request of its flow and id in the payload
// yields a query of its own; one that repeats an already paired response
// yields nothing. unused counts responses that could not stand alone
// (no name or no client).
func pairDNS(legs []dnsLeg) (out []DNSQuery, unused int) {
	// Three indexes of requests in input order, from most to least
	// specific, so pairing stays linear however many share a flow and id.
	byType, byName, byKey := requestIndex{}, requestIndex{}, requestIndex{}
	for i, l := range legs {
		if l.request {
			byType.add(l.key+"\x00"+l.domain+"\x00"+l.qtype, i)
			byName.add(l.key+"\x00"+l.domain, i)
			byKey.add(l.key, i)
		}
	}
	emit := make([]bool, len(legs))
	seen := map[string]bool{}
	n := 0
	for i := range legs {
		l := &legs[i]
		if l.request {
			emit[i] = true
			n++
			continue
		}
		if seen[l.group] { // another RR line of a response already handled
			continue
		}
		seen[l.group] = true
		j := -1
		if l.domain != "" {
			if j = byType.next(legs, l.key+"\x00"+l.domain+"\x00"+l.qtype); j < 0 {
				j = byName.next(legs, l.key+"\x00"+l.domain)
			}
		}
		if j < 0 {
			j = byKey.next(legs, l.key)
		}
		switch {
		case j >= 0:
			legs[j].rcode, legs[j].answered = l.rcode, true
		case byKey.has(l.key): // every request answered: a retransmitted response
		case l.domain == "" || l.client == "":
			unused++
		default:
			emit[i] = true
			n++
		}
	}
	if n == 0 {
		return nil, unused
	}
	out = make([]DNSQuery, 0, n)
	for i, l := range legs {
		if emit[i] {
			out = append(out, DNSQuery{
				Timestamp: l.ts, Client: l.client, Domain: l.domain, QType: l.qtype, RCode: l.rcode, Line: l.line,
			})
		}
	}
	return out, unused
}

// requestIndex maps a key to request positions in input order. Answered
// requests are dropped from the front lazily, each at most once.
type requestIndex map[string][]int

func (x requestIndex) add(k string, i int) { x[k] = append(x[k], i) }

func (x requestIndex) has(k string) bool {
	_, ok := x[k]
	return ok
}

// next returns the first unanswered request under k, or -1.
func (x requestIndex) next(legs []dnsLeg, k string) int {
	q := x[k]
	for len(q) > 0 && legs[q[0]].answered {
		q = q[1:]
	}
	if _, ok := x[k]; ok {
		x[k] = q
	}
	if len(q) == 0 {
		return -1
	}
	return q[0]
}
