package eve

import "errors"

// parser accumulates one payload. DNS responses are paired at the end
// because a sensor does not always write a response after its request.
type parser struct {
	events  []Event
	dns     []dnsLeg
	skipped int
}

func (p *parser) add(line int, r record) error {
	ts, err := r.timestamp()
	if err != nil {
		return err
	}
	et, ok := r["event_type"].(string)
	if !ok || et == "" {
		return errors.New("missing event_type")
	}
	var (
		e    Event
		used = true
	)
	switch et {
	case "alert":
		e, err = alertEvent(r, ts)
	case "drop":
		e, err = dropEvent(r, ts)
	case "flow":
		e, used, err = flowEvent(r, ts)
	case "anomaly":
		e, used, err = anomalyEvent(r, ts)
	case "dns":
		var leg dnsLeg
		leg, used, err = dnsLegOf(r, ts)
		if err == nil && used {
			leg.line = line
			p.dns = append(p.dns, leg)
			return nil
		}
	default:
		used = false
	}
	switch {
	case err != nil:
		return err // already names the record type
	case !used:
		p.skipped++
	case et != "dns":
		e.Line = line
		p.events = append(p.events, e)
	}
	return nil
}

func (p *parser) result() Result {
	dns, unused := pairDNS(p.dns)
	return Result{Events: p.events, DNS: dns, Skipped: p.skipped + unused}
}
