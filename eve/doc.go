// Package eve turns Suricata EVE JSON, as posted to Garrison's
// POST /api/webhooks/suricata, into Garrison security events and DNS
// telemetry. It only parses: it stores nothing and needs no clock.
//
// # Input
//
// [Parse] takes either a JSON array of objects or JSON lines (one object per
// line; blank lines ignored; CRLF and a leading UTF-8 BOM tolerated). It is
// all or nothing: the first bad record stops it with a [*valid.Error] whose
// field is "line N": the 1-based line number, or the 1-based element index
// for an array. A record is bad when it is not valid JSON, not an object, has no
// parseable timestamp or event_type, or is of a type listed below without
// the fields marked essential. [ParsePartial] keeps the good records
// instead and names each bad one's line. Records of other types are counted in
// [Result.Skipped]. At most [MaxRecords] records are accepted
// ([ErrTooManyRecords]).
//
// Timestamps may carry Suricata's "-0600" offset, an RFC 3339 offset or
// "Z", or no zone at all (read as UTC; older sensors write that), with or
// without fractional seconds. All times are returned in UTC.
//
// # Mapping
//
//	event_type  condition                          Garrison
//	alert       alert.action blocked/drop(ped)/    blocked_connection
//	            reject(ed)
//	alert       otherwise                          threat_detected
//	drop        always                             blocked_connection, "low" unless
//	                                               an attached alert has a severity
//	flow        flow.action blocked/drop(ped)/...  blocked_connection, as drop
//	flow        otherwise                          skipped
//	anomaly     app_proto "dns", or anomaly.layer  dns_anomaly, "medium"
//	            or anomaly.event mentions dns
//	anomaly     otherwise                          skipped
//	dns         request ("query", v3 "request")    DNSQuery
//	dns         response ("answer", v3 "response") fills a request's RCode; see below
//	other       http, tls, fileinfo, stats, ...    skipped
//
// Essential fields: alert needs an alert object with signature or
// signature_id; drop (and a blocking flow) valid src_ip and dest_ip; flow a
// flow object; anomaly an anomaly object; dns a dns object with a type, and
// a request also a query name and a valid src_ip.
//
// Alert severity comes from one table (severity.go): alert.severity (1
// "high", 2 "medium", 3 "low", anything else "info") capped or replaced by
// the signature's class (Classify: ET POLICY is notice, ET CNC is c2, …)
// and the traffic's direction (Direction: inbound, outbound, internal,
// external). Message and Indicator are the signature.
//
// A drop's Message reads "Dropped TCP 203.0.113.5:4444 → 10.0.0.1:22"
// (a blocking flow's "Blocked flow TCP ..."), and its Indicator is the
// address on the other side of the Asset. A dns_anomaly's Message is
// "DNS anomaly: " and anomaly.event (or anomaly.type); its Indicator is the
// query name when the record has one, else the other side's address.
//
// The Asset is the protected host: when exactly one of src_ip and dest_ip
// is internal (RFC 1918, ULA, loopback, link-local), that one; otherwise
// dest_ip, otherwise src_ip, otherwise "unknown". Unparseable addresses
// count as absent; addresses are returned in canonical form.
//
// Details holds the useful EVE fields (signature_id, gid, rev, category,
// action, alert_severity, signature_class, direction, src_ip, src_port, dest_ip, dest_port, proto,
// app_proto, flow_id, event_type, in_iface, host, rrname, http_hostname,
// http_url, tls_sni, drop_reason, anomaly_*). Numbers stay numbers
// (int64, or float64 when not integral), strings stay strings.
//
// # DNS pairing
//
// Every request record yields one [DNSQuery] (Client is src_ip, RCode
// empty). Responses only complete requests: a response fills the RCode of
// the best unanswered request of the same flow (flow_id) and DNS id in the
// same payload, preferring the same name and type, then the same name,
// then input order. Suricata's v1 format logs one line per answer RR;
// lines of one response (same flow, id, timestamp and pcap_cnt) count once.
// A response whose request is not in the payload yields a DNSQuery of its
// own, carrying its RCode; its Client is the asker, found from the port-53
// side, or, when ports do not tell, from the logging version (v2 writes the
// client as src_ip, v1 and v3 write the responder as src_ip). A response
// that repeats one already paired yields nothing; one naming no question is
// counted as skipped. A v3 request with several questions yields its first.
//
// # Safety
//
// Parse never panics. Every string taken from the input into Message,
// Indicator, Details, Domain, QType or RCode is made single-line (control
// characters, U+2028/2029 and bidi controls become spaces) and capped at
// 500 bytes (32 for protocol names and codes), cut by valid.Clip's rule
// ("… [truncated from 1.2 KiB]"). Domains are lower-cased with
// trailing dots removed; the root is "<root>". Error messages quote at most
// 64 bytes of input.
package eve
