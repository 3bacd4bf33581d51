package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// This file makes synthetic events shaped like a small company's feed: a
// few hundred hosts, a few thousand indicators (some far more common than
// others), about 10 % high or critical, spread over the last 30 days.

const (
	batchSize  = 1000 // events per POST /api/events
	assets     = 400
	indicators = 4000
	spread     = 30 * 24 * time.Hour
)

var (
	eventTypes = []string{"threat_detected", "blocked_connection", "dns_anomaly", "policy_violation"}
	sources    = []string{"suricata", "zeek", "edr", "firewall", "dns-resolver", "proxy"}
	policies   = []string{"usb storage mounted", "unapproved software installed", "admin login outside hours",
		"disk encryption off", "cleartext protocol used"}
)

// generator makes batches as a sensor sends them: in time order, each
// batch covering the next slice of the span, so bursts, rollup hours and
// index positions move forward as in a real feed (a batch scattered over
// 30 days would make every event a late arrival). Its seed makes runs
// repeatable.
type generator struct {
	size int // events per batch
	rng  *rand.Rand
	now  time.Time
	next time.Time     // where the next batch's slice starts
	step time.Duration // one batch's slice
}

// newGenerator spreads events (in batches of batchSize) over the
// span before now.
func newGenerator(seed uint64, now time.Time, events int) *generator {
	return newGeneratorOf(seed, now, events, batchSize)
}

// newGeneratorOf spreads events in batches of size over the span.
func newGeneratorOf(seed uint64, now time.Time, events, size int) *generator {
	batches := max(1, events/size)
	return &generator{size: size, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), now: now,
		next: now.Add(-spread), step: spread / time.Duration(batches)}
}

// severity: info 35 %, low 30 %, medium 25 %, high 7 %, critical 3 %.
func (g *generator) severity() string {
	switch n := g.rng.IntN(100); {
	case n < 35:
		return "info"
	case n < 65:
		return "low"
	case n < 90:
		return "medium"
	case n < 97:
		return "high"
	default:
		return "critical"
	}
}

// indicator picks skewed: low numbers are seen much more often.
func (g *generator) indicator() string {
	u := g.rng.Float64()
	i := int(u * u * u * indicators)
	if i%2 == 0 {
		return fmt.Sprintf("198.18.%d.%d", i/256%256, i%256) // RFC 2544 benchmark range
	}
	return "d" + strconv.Itoa(i) + ".bad.example"
}

// appendBatch appends the JSON body of one batch of n events to b.
func (g *generator) appendBatch(b []byte, n int) []byte {
	from := g.next
	g.next = g.next.Add(g.step)
	if g.next.After(g.now) {
		g.next = g.now.Add(-g.step) // past the span: keep sending the present
	}
	b = append(b, `{"events":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		typ := eventTypes[g.rng.IntN(len(eventTypes))]
		ts := from.Add(time.Duration(g.rng.Int64N(int64(g.step)))).UTC()
		hostNum := g.rng.IntN(assets)
		asset := fmt.Sprintf("ws-%03d.corp.example", hostNum)
		ind := g.indicator()
		var msg, details, fields string
		switch typ {
		case "threat_detected":
			msg = fmt.Sprintf("Malware signature Trojan.Generic.%d matched on %s", g.rng.IntN(500), asset)
		case "blocked_connection":
			port := []int{22, 443, 445, 3389, 4444, 8080}[g.rng.IntN(6)]
			msg = fmt.Sprintf("Blocked outbound connection to %s:%d", ind, port)
			details = fmt.Sprintf(`{"port":%d,"proto":"tcp","bytes":%d}`, port, g.rng.IntN(100000))
			// The normalised fields a firewall's record carries: the host's
			// own address (10.20.0.0/22, one per asset) as the source.
			fields = fmt.Sprintf(`,"src_ip":"10.20.%d.%d","dst_port":%d`, hostNum/250, hostNum%250+1, port)
		case "dns_anomaly":
			msg = "Suspicious DNS query for " + ind
		default:
			msg = "Policy violation: " + policies[g.rng.IntN(len(policies))]
		}
		b = append(b, `{"type":"`...)
		b = append(b, typ...)
		b = append(b, `","severity":"`...)
		b = append(b, g.severity()...)
		b = append(b, `","timestamp":"`...)
		b = ts.AppendFormat(b, time.RFC3339)
		b = append(b, `","source":"`...)
		b = append(b, sources[g.rng.IntN(len(sources))]...)
		b = append(b, `","asset":"`...)
		b = append(b, asset...)
		b = append(b, `","message":"`...)
		b = append(b, msg...) // no character here needs escaping
		b = append(b, `","indicator":"`...)
		b = append(b, ind...)
		b = append(b, '"')
		b = append(b, fields...)
		if details != "" {
			b = append(b, `,"details":`...)
			b = append(b, details...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// batches makes the bodies of n events in the generator's batches.
func (g *generator) batches(n int) [][]byte {
	var out [][]byte
	for n > 0 {
		k := min(n, g.size)
		out = append(out, g.appendBatch(make([]byte, 0, k*280), k))
		n -= k
	}
	return out
}
