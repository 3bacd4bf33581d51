package telemetry

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Syslog lines: RFC 5424 (<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD MSG)
// and RFC 3164 (<PRI>Mmm dd hh:mm:ss HOST TAG[PID]: MSG, the PRI optional
// as in files rsyslog writes; an RFC 3339 time in its place is taken too),
// or a bare message (a FortiGate's key=value line, a CEF line). Traditional
// lines carry no year: it is the one that puts the time no more than a day
// ahead of the receiving time. A line without any time is dated when it
// arrived.
//
// The message is then read by what wrote it (syslogapps.go); what no
// reader knows is activity, info, with the line as its message.

// header is what the syslog framing says about a line.
type header struct {
	facility, severity int // -1 when the line has no PRI
	time               time.Time
	host, app, pid     string
	msg                string
}

var months = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// ParseSyslog reads a body of syslog lines, one record a line; now is the
// receiving time.
func ParseSyslog(body []byte, now time.Time) Result {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	res := Result{Records: make([]Record, 0, lineCount(body))} // records are large: grown once
	for n := 1; len(body) > 0; n++ {
		var line []byte
		line, body, _ = bytes.Cut(body, []byte("\n"))
		line = bytes.TrimRight(line, "\r\x00")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if res.full(n) {
			return res
		}
		r, err := SyslogRecord(line, now)
		if err != nil {
			res.refuse(n, "is not a usable syslog line: %v", err)
			continue
		}
		r.Line = n
		res.Records = append(res.Records, r)
	}
	return res
}

// MaxSyslogLine is the longest line read; RFC 5424 asks receivers to take
// at least 2 KiB, and firewalls' lines stay well under this.
const MaxSyslogLine = 64 << 10

// SyslogRecord reads one syslog message.
func SyslogRecord(line []byte, now time.Time) (Record, error) {
	if len(line) > MaxSyslogLine {
		return Record{}, fmt.Errorf("is %d bytes long, past the %d a line may hold", len(line), MaxSyslogLine)
	}
	h, err := readHeader(strings.ToValidUTF8(string(line), "\uFFFD"), now)
	if err != nil {
		return Record{}, err
	}
	r := readMessage(h)
	if r.Raw == nil {
		r.Raw = &Raw{Format: FormatSyslog, Log: h.app, message: h.msg}
	}
	if r.Timestamp.IsZero() {
		r.Timestamp = h.time
	}
	if r.Timestamp.IsZero() {
		r.Timestamp = now.UTC()
		r.Details["time"] = "received"
	}
	if r.Fields.Host == "" {
		r.Fields.Host = h.host
	}
	if r.Fields.Process == "" {
		r.Fields.Process = h.app
	}
	if h.facility >= 0 {
		r.Details["facility"], r.Details["syslog_severity"] = h.facility, h.severity
	}
	if h.app != "" {
		r.Details["app"] = text(h.app, 64)
	}
	if h.pid != "" {
		r.Details["pid"] = text(h.pid, 32)
	}
	r.Original = original(line)
	finish(&r)
	return r, nil
}

func readHeader(s string, now time.Time) (header, error) {
	h := header{facility: -1, severity: -1}
	if strings.HasPrefix(s, "<Event") {
		h.msg = s // a Windows event as XML, forwarded as it is
		return h, nil
	}
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		if end < 2 || end > 4 {
			return h, fmt.Errorf("its priority %s is not <0> to <191>", quote(s[:min(len(s), 6)]))
		}
		pri, err := strconv.Atoi(s[1:end])
		if err != nil || pri < 0 || pri > 191 {
			return h, fmt.Errorf("its priority %s is not <0> to <191>", quote(s[:end+1]))
		}
		h.facility, h.severity = pri/8, pri%8
		s = s[end+1:]
	}
	if len(s) > 2 && s[0] >= '1' && s[0] <= '9' && s[1] == ' ' && h.facility >= 0 {
		return read5424(h, s[2:])
	}
	return read3164(h, s, now), nil
}

func token(s string) (tok, rest string) {
	tok, rest, _ = strings.Cut(s, " ")
	return tok, rest
}

func nil5424(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func read5424(h header, s string) (header, error) {
	stamp, s := token(s)
	if stamp != "-" {
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return h, fmt.Errorf("its RFC 5424 timestamp %s is not RFC 3339", quote(stamp))
		}
		h.time = t.UTC()
	}
	var host, app, pid string
	host, s = token(s)
	app, s = token(s)
	pid, s = token(s)
	_, s = token(s) // MSGID
	h.host, h.app, h.pid = nil5424(host), nil5424(app), nil5424(pid)
	switch {
	case strings.HasPrefix(s, "-"):
		s = strings.TrimPrefix(s[1:], " ")
	case strings.HasPrefix(s, "["):
		end, ok := endOfSD(s)
		if !ok {
			return h, fmt.Errorf("its structured data does not end")
		}
		s = strings.TrimPrefix(s[end:], " ")
	}
	h.msg = strings.TrimPrefix(s, "\ufeff")
	return h, nil
}

// endOfSD finds the end of RFC 5424 structured data: elements in brackets,
// values quoted with \" \\ \] escaped.
func endOfSD(s string) (int, bool) {
	i := 0
	for i < len(s) && s[i] == '[' {
		quoted := false
		for i++; i < len(s); i++ {
			c := s[i]
			if c == '\\' && quoted {
				i++
				continue
			}
			if c == '"' {
				quoted = !quoted
			}
			if c == ']' && !quoted {
				break
			}
		}
		if i >= len(s) {
			return 0, false
		}
		i++
	}
	return i, true
}

func read3164(h header, s string, now time.Time) header {
	if t, rest, ok := bsdTime(s, now); ok {
		h.time, s = t, rest
	} else if stamp, rest := token(s); len(stamp) >= 20 && stamp[4] == '-' && stamp[10] == 'T' {
		if t, err := time.Parse(time.RFC3339Nano, stamp); err == nil {
			h.time, s = t.UTC(), rest
		}
	}
	if h.time.IsZero() { // a bare message: a device writing no header
		h.msg = s
		return h
	}
	s = strings.TrimLeft(s, " ")
	if host, rest := token(s); host != "" && !strings.HasSuffix(host, ":") && !strings.Contains(host, "=") &&
		!strings.HasPrefix(host, "CEF:") {
		h.host, s = host, rest
	}
	// TAG: up to 32 word characters, "[pid]" and a colon.
	if tag, rest, ok := strings.Cut(s, ": "); ok && len(tag) <= 64 && !strings.ContainsAny(tag, " =|") {
		app, pid, _ := strings.Cut(tag, "[")
		h.app, h.pid, s = app, strings.TrimSuffix(pid, "]"), rest
	} else if tag, rest, ok := strings.Cut(s, " "); ok && strings.HasSuffix(tag, ":") && len(tag) <= 64 {
		h.app, s = strings.TrimSuffix(tag, ":"), rest
	}
	h.msg = s
	return h
}

// bsdTime reads "Mmm dd hh:mm:ss " (the day padded with a space or a zero,
// or not at all), the year being the one that puts it no more than a day
// after now.
func bsdTime(s string, now time.Time) (time.Time, string, bool) {
	if len(s) < 14 || s[3] != ' ' {
		return time.Time{}, s, false
	}
	month, ok := months[s[:3]]
	if !ok {
		return time.Time{}, s, false
	}
	rest := strings.TrimLeft(s[4:], " ")
	dayText, rest, _ := strings.Cut(rest, " ")
	day, err := strconv.Atoi(dayText)
	if err != nil || day < 1 || day > 31 || len(rest) < 8 || rest[2] != ':' || rest[5] != ':' {
		return time.Time{}, s, false
	}
	hh, err1 := strconv.Atoi(rest[0:2])
	mm, err2 := strconv.Atoi(rest[3:5])
	ss, err3 := strconv.Atoi(rest[6:8])
	if err1 != nil || err2 != nil || err3 != nil || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, s, false
	}
	rest = rest[8:]
	nanos := 0
	if strings.HasPrefix(rest, ".") { // rsyslog's high-precision form
		end := 1
		for end < len(rest) && end < 10 && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		frac := rest[1:end] + strings.Repeat("0", 9-(end-1))
		nanos, _ = strconv.Atoi(frac)
		rest = rest[end:]
	}
	if !strings.HasPrefix(rest, " ") {
		return time.Time{}, s, false
	}
	now = now.UTC()
	var t time.Time
	for year := now.Year() + 1; year >= now.Year()-1; year-- { // the latest not past a day ahead
		if t = time.Date(year, month, day, hh, mm, ss, nanos, time.UTC); !t.After(now.Add(24 * time.Hour)) {
			break
		}
	}
	return t, rest[1:], true
}
