package ingest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"garrison/eve"
	"garrison/event"
	"garrison/store"
	"garrison/valid"
)

// parseEVE reads Suricata EVE JSON (lines or an array) into events and DNS
// telemetry. A bad record refuses the whole body, naming its line.
func parseEVE(body []byte, o Options) (Batch, error) {
	if o.Partial {
		res, problems := eve.ParsePartial(body)
		b := Batch{Skipped: res.Skipped}
		for _, p := range problems {
			b.Rejected = append(b.Rejected, Rejection{Line: p.Line, Reason: p.Reason})
		}
		return eveBatch(b, res, o)
	}
	res, err := eve.Parse(body)
	var invalid *valid.Error
	if errors.As(err, &invalid) {
		for i := range invalid.Problems {
			invalid.Problems[i].Message += "; nothing was stored"
		}
		return Batch{}, invalid
	}
	if err != nil {
		return Batch{}, valid.Field("body", err.Error())
	}
	return eveBatch(Batch{Skipped: res.Skipped}, res, o)
}

// eveBatch turns parsed EVE into store inputs, checking each record's time:
// a bad one refuses the body, or in a partial batch is left out.
func eveBatch(b Batch, res eve.Result, o Options) (Batch, error) {
	b.Events = make([]store.NewEvent, 0, len(res.Events))
	b.DNS = make([]store.DNSQuery, 0, len(res.DNS))
	for _, e := range res.Events {
		if problem := timeProblem(e.Timestamp, o); problem != "" {
			if o.Partial {
				b.Rejected = append(b.Rejected, Rejection{Line: e.Line, Reason: "its timestamp " + problem})
				continue
			}
			return Batch{}, valid.Field(fmt.Sprintf("line %d", e.Line), fmt.Sprintf("holds an EVE record whose timestamp %s %s; nothing was stored",
				e.Timestamp.Format(time.RFC3339), problem))
		}
		if e.Target != nil && o.TargetRuns != nil {
			if why, ok := o.TargetRuns(*e.Target); ok { // the host runs what it targets: the cap is lifted
				e.Severity, e.Details["target_runs"] = e.Target.Uncapped, why
			}
		}
		details, err := json.Marshal(e.Details)
		if err != nil {
			return Batch{}, valid.Field("body", "holds a record whose details cannot be stored")
		}
		category, _ := e.Details["category"].(string)
		b.Events = append(b.Events, store.NewEvent{Type: e.Type, Severity: e.Severity, Timestamp: e.Timestamp, Source: SourceSuricata,
			Asset: e.Asset, Message: e.Message, Indicator: e.Indicator, Category: category, Details: details, Fields: eveFields(e.Details)})
	}
	for _, q := range res.DNS {
		if problem := timeProblem(q.Timestamp, o); problem != "" {
			if o.Partial {
				b.Rejected = append(b.Rejected, Rejection{Line: q.Line, Reason: "its timestamp " + problem})
				continue
			}
			return Batch{}, valid.Field(fmt.Sprintf("line %d", q.Line), fmt.Sprintf("holds an EVE DNS record whose timestamp %s %s; nothing was stored",
				q.Timestamp.Format(time.RFC3339), problem))
		}
		b.DNS = append(b.DNS, store.DNSQuery{Timestamp: q.Timestamp, Source: SourceSuricata, Client: q.Client, Domain: q.Domain,
			QType: q.QType, RCode: q.RCode, Category: o.classify(q.Domain)})
	}
	sortRejections(b.Rejected)
	return b, nil
}

func sortRejections(r []Rejection) {
	sort.SliceStable(r, func(i, j int) bool { return r[i].Line < r[j].Line })
}

// eveFields reads the normalised fields from an EVE event's details.
func eveFields(d map[string]any) event.Fields {
	str := func(k string) string { s, _ := d[k].(string); return s }
	port := func(k string) uint16 {
		if n, ok := d[k].(int64); ok && n > 0 && n < 1<<16 {
			return uint16(n)
		}
		return 0
	}
	addr := func(k string) netip.Addr {
		a, _ := netip.ParseAddr(str(k))
		return a.Unmap()
	}
	return event.Fields{SrcIP: addr("src_ip"), DstIP: addr("dest_ip"), SrcPort: port("src_port"), DstPort: port("dest_port"),
		Host: str("host"), Rule: str("signature"), Action: cmp.Or(str("action"), str("flow_action"))}
}
