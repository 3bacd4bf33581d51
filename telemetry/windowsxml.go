package telemetry

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// xmlEvent is a Windows event rendered as XML (<Event><System>…
// <EventData><Data Name="…">), as Windows' own forwarders and the event
// viewer write it.
type xmlEvent struct {
	System struct {
		Provider struct {
			Name string `xml:"Name,attr"`
		}
		EventID     string
		TimeCreated struct {
			SystemTime string `xml:"SystemTime,attr"`
		}
		Channel  string
		Computer string
	}
	EventData struct {
		Data []struct {
			Name  string `xml:"Name,attr"`
			Value string `xml:",chardata"`
		}
	}
}

// readWindowsXML reads a Windows XML event; false when it is not one.
func readWindowsXML(s string) (Record, bool) {
	var x xmlEvent
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = false
	if err := dec.Decode(&x); err != nil {
		return Record{}, false
	}
	id, err := strconv.Atoi(strings.TrimSpace(x.System.EventID))
	t, ok := parseTime(x.System.TimeCreated.SystemTime, winTimeLayouts)
	if err != nil || !ok {
		return Record{}, false
	}
	w := winEvent{id: id, channel: x.System.Channel, provider: x.System.Provider.Name, computer: x.System.Computer,
		time: t, data: obj{}}
	for _, d := range x.EventData.Data {
		if d.Name != "" && len(w.data) < 200 {
			w.data[d.Name] = d.Value
		}
	}
	return windowsRecord(w), true
}
