package handlers

import (
	"bufio"
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"garrison/event"
	"garrison/sheet"
	"garrison/timestamp"
	"garrison/valid"
)

// exportDeadline is how long an export may wait for its reader between two
// batches; each batch written moves it on, so a long export is not cut
// by the server's write timeout while a stalled reader still is.
const exportDeadline = 60 * time.Second

// exportFlushEvery is how many events go out between flushes.
const exportFlushEvery = 1000

var exportColumns = []string{"id", "timestamp", "received_at", "type", "severity", "source", "asset", "message", "indicator",
	"src_ip", "src_port", "dst_ip", "dst_port", "user", "process", "command_line", "host", "rule", "action", "alert_id", "details"}

// exportEvents streams every event passing the filters, oldest first, as
// CSV (cells neutralised for spreadsheets) or NDJSON (the list's event
// objects, one a line), in constant memory.
func (a *API) exportEvents(w http.ResponseWriter, r *http.Request) error {
	format, _ := queryValue(r, "format")
	if format != "csv" && format != "ndjson" {
		return valid.Field("format", "must be csv or ndjson")
	}
	rc := http.NewResponseController(w)
	out := bufio.NewWriterSize(w, 64<<10)
	var cw *csv.Writer
	n := 0
	start := func() {
		w.Header().Set("Content-Disposition", `attachment; filename="garrison-events.`+format+`"`)
		w.Header().Set("Cache-Control", "no-store")
		if format == "csv" {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			cw = csv.NewWriter(out)
			cw.Write(exportColumns)
		} else {
			w.Header().Set("Content-Type", "application/x-ndjson")
		}
		w.WriteHeader(http.StatusOK)
	}
	var line []byte
	err := a.Dashboard.ExportEvents(r.Context(), principalFrom(r.Context()).OrgID, eventQuery(r), func(e event.Event) error {
		if n == 0 {
			start()
		}
		if n%exportFlushEvery == 0 {
			rc.SetWriteDeadline(time.Now().Add(exportDeadline))
		}
		n++
		if cw != nil {
			cw.Write(csvRow(e))
			if n%exportFlushEvery == 0 {
				cw.Flush()
			}
			return cw.Error()
		}
		v := newEventView(e)
		var ok bool
		if line, ok = v.appendJSON(line[:0]); !ok {
			line = append(line[:0], `{"id":`...)
			line = append(appendJSONString(line, e.ID), `,"error":"its details are not JSON"}`...)
		}
		_, err := out.Write(append(line, '\n'))
		return err
	})
	if err != nil && n == 0 {
		return err // nothing written yet: the error answers
	}
	if err != nil {
		a.Log.Warn("event export cut short", "events", n, "err", err)
		return nil
	}
	if n == 0 {
		start()
	}
	if cw != nil {
		cw.Flush()
	}
	out.Flush()
	return nil
}

func csvRow(e event.Event) []string {
	f := e.Fields
	addr := func(ok bool, s string) string {
		if !ok {
			return ""
		}
		return s
	}
	port := func(p uint16) string {
		if p == 0 {
			return ""
		}
		return strconv.Itoa(int(p))
	}
	return sheet.Safe(e.ID, timestamp.Format(e.Timestamp), timestamp.Format(e.ReceivedAt), e.Type, e.Severity.String(), e.Source,
		e.Asset, e.Message, e.Indicator, addr(f.SrcIP.IsValid(), f.SrcIP.String()), port(f.SrcPort),
		addr(f.DstIP.IsValid(), f.DstIP.String()), port(f.DstPort), f.User, f.Process, f.CommandLine, f.Host, f.Rule, f.Action,
		e.AlertID, string(e.Details))
}
