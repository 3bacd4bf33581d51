package eve

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"garrison/event"
)

// blockedAction reports the alert.action values of an IPS that stopped the
// traffic ("blocked" is what Suricata writes for drop and reject rules).
func blockedAction(action string) bool {
	switch strings.ToLower(action) {
	case "blocked", "drop", "dropped", "reject", "rejected":
		return true
	}
	return false
}

func alertEvent(r record, ts time.Time) (Event, error) {
	a, ok := r.obj("alert")
	if !ok {
		return Event{}, errors.New("alert record without an alert object")
	}
	sig := clean(a.str("signature"), maxText)
	if sig == "" {
		sid, ok := a.int("signature_id")
		if !ok {
			return Event{}, errors.New("alert record without alert.signature or alert.signature_id")
		}
		sig = fmt.Sprintf("Suricata signature %d", sid)
	}
	src, dst := r.addr("src_ip"), r.addr("dest_ip")
	asset, _ := assetOf(src, dst)
	e := Event{
		Type:      event.TypeThreat,
		Severity:  alertSeverity(a, src, dst),
		Timestamp: ts,
		Asset:     assetName(asset),
		Message:   sig,
		Indicator: sig,
		Details:   commonDetails(r),
	}
	if blockedAction(a.str("action")) {
		e.Type = event.TypeBlocked
	} else {
		e.Target = exploitTarget(a, src, dst) // a blocked attempt stays capped: it did not reach the host
	}
	alertDetails(e.Details, a, src, dst)
	if name := dnsName(r); name != "" {
		e.Details["rrname"] = name
	}
	if h, ok := r.obj("http"); ok {
		h.copyTo(e.Details, "http_hostname", "hostname")
		h.copyTo(e.Details, "http_url", "url")
	}
	if t, ok := r.obj("tls"); ok {
		t.copyTo(e.Details, "tls_sni", "sni")
	}
	return e, nil
}

// alertSeverity is an alert's severity by the table (severity.go).
func alertSeverity(a record, src, dst netip.Addr) event.Severity {
	suricata, ok := a.int("severity")
	return Severity(suricata, ok, Classify(a.str("signature"), a.str("category")), Direction(src, dst))
}

// alertDetails copies the alert's rule fields, with the class and
// direction its severity was read by.
func alertDetails(d map[string]any, a record, src, dst netip.Addr) {
	d["signature_class"], d["direction"] = Classify(a.str("signature"), a.str("category")), Direction(src, dst)
	for _, k := range [...]string{"signature_id", "gid", "rev", "category", "action"} {
		a.copyTo(d, k, k)
	}
	a.copyTo(d, "alert_severity", "severity")
}

// commonDetails copies the flow tuple and the sensor fields every event has.
func commonDetails(r record) map[string]any {
	d := map[string]any{}
	for _, k := range [...]string{
		"event_type", "src_ip", "src_port", "dest_ip", "dest_port", "proto",
		"app_proto", "flow_id", "in_iface", "host",
	} {
		r.copyTo(d, k, k)
	}
	return d
}

// assetName is the Asset of an event whose addresses may be missing.
func assetName(a netip.Addr) string {
	if !a.IsValid() {
		return "unknown"
	}
	return a.String()
}

// blockEvent serves drop records and flow records an IPS marked as
// dropped: both say traffic between two endpoints was stopped.
func blockEvent(r record, ts time.Time, verb string) (Event, error) {
	src, dst := r.addr("src_ip"), r.addr("dest_ip")
	if !src.IsValid() || !dst.IsValid() {
		return Event{}, fmt.Errorf("%s record without valid src_ip and dest_ip", r.str("event_type"))
	}
	sp, sok := r.port("src_port")
	dp, dok := r.port("dest_port")
	proto := clean(r.str("proto"), 32)
	if proto == "" {
		proto = "IP"
	}
	asset, peer := assetOf(src, dst)
	e := Event{
		Type:      event.TypeBlocked,
		Severity:  event.Low,
		Timestamp: ts,
		Asset:     asset.String(),
		Message:   fmt.Sprintf("%s %s %s → %s", verb, proto, endpoint(src, sp, sok), endpoint(dst, dp, dok)),
		Indicator: peer.String(),
		Details:   commonDetails(r),
	}
	if d, ok := r.obj("drop"); ok {
		d.copyTo(e.Details, "drop_reason", "reason")
	}
	if f, ok := r.obj("flow"); ok {
		f.copyTo(e.Details, "flow_action", "action")
		f.copyTo(e.Details, "flow_reason", "reason")
	}
	// An IPS configured to log alerts with drops attaches the rule that fired.
	if a, ok := r.obj("alert"); ok {
		if _, has := a.int("severity"); has {
			e.Severity = alertSeverity(a, src, dst)
		}
		alertDetails(e.Details, a, src, dst)
		a.copyTo(e.Details, "signature", "signature")
	}
	return e, nil
}

func dropEvent(r record, ts time.Time) (Event, error) {
	return blockEvent(r, ts, "Dropped")
}

// flowEvent returns ok=false for the ordinary flow records (the vast
// majority), which Garrison does not store.
func flowEvent(r record, ts time.Time) (e Event, ok bool, err error) {
	f, ok := r.obj("flow")
	if !ok {
		return Event{}, false, errors.New("flow record without a flow object")
	}
	if !blockedAction(f.str("action")) {
		return Event{}, false, nil
	}
	e, err = blockEvent(r, ts, "Blocked flow")
	return e, err == nil, err
}

// anomalyEvent returns ok=false for anomalies that are not about DNS
// (decoder and stream anomalies, other protocols' parser events).
func anomalyEvent(r record, ts time.Time) (e Event, ok bool, err error) {
	an, ok := r.obj("anomaly")
	if !ok {
		return Event{}, false, errors.New("anomaly record without an anomaly object")
	}
	if !isDNSAnomaly(r, an) {
		return Event{}, false, nil
	}
	what := clean(an.str("event"), maxText)
	if what == "" {
		what = clean(an.str("type"), maxText)
	}
	if what == "" {
		what = "unspecified"
	}
	msg := clean("DNS anomaly: "+what, maxText)
	asset, peer := assetOf(r.addr("src_ip"), r.addr("dest_ip"))
	e = Event{
		Type:      event.TypeDNS,
		Severity:  event.Medium,
		Timestamp: ts,
		Asset:     assetName(asset),
		Message:   msg,
		Details:   commonDetails(r),
	}
	for _, k := range [...]string{"type", "event", "layer", "code"} {
		an.copyTo(e.Details, "anomaly_"+k, k)
	}
	switch name := dnsName(r); {
	case name != "":
		e.Indicator = name
		e.Details["rrname"] = name
	case peer.IsValid():
		e.Indicator = peer.String()
	default:
		e.Indicator = e.Asset
	}
	return e, true, nil
}

func isDNSAnomaly(r, an record) bool {
	return strings.EqualFold(r.str("app_proto"), "dns") ||
		strings.EqualFold(an.str("app_proto"), "dns") ||
		containsFold(an.str("layer"), "dns") ||
		containsFold(an.str("event"), "dns")
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}
