package detection

import (
	"garrison/sigma"
	"garrison/telemetry"
)

// A Zeek record is what Sigma's Zeek rules read as it is: Zeek's own field
// names (id.orig_h, query, operation …) under product zeek and the log's
// name as the service. A dns record is also of the generic dns category,
// whose rules name the answers answer and the query type record_type.

func zeekEvent(raw *telemetry.Raw) (sigma.Event, []sigma.Logsource) {
	e := make(sigma.Event, raw.Len()+2)
	raw.FieldsInto(e)
	sources := []sigma.Logsource{{Product: "zeek"}, {Product: "zeek", Service: raw.Log}}
	if raw.Log == "dns" {
		if v, ok := e["answers"]; ok {
			e["answer"] = v
		}
		if v, ok := e["qtype_name"]; ok {
			e["record_type"] = v
		}
		sources = append(sources, sigma.Logsource{Category: "dns"})
	}
	return e, sources
}
