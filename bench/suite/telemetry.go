package main

import (
	"fmt"
	"time"
)

// This file makes the other sources' records, as their shippers send
// them, for the ingest phases of Windows events and syslog lines beside
// native ingest: the same hosts and span as the native feed.

// telemetryFeed is one source's webhook and its batches.
type telemetryFeed struct {
	name, path, contentType string
	appendBatch             func(g *generator, b []byte, n int) []byte
}

var telemetryFeeds = []telemetryFeed{
	{"windows", "/api/webhooks/windows", "application/x-ndjson", (*generator).appendWindows},
	{"syslog", "/api/webhooks/syslog", "text/plain", (*generator).appendSyslog},
}

// slice moves the generator to the next batch's slice of time.
func (g *generator) slice() time.Time {
	from := g.next
	g.next = g.next.Add(g.step)
	if g.next.After(g.now) {
		g.next = g.now.Add(-g.step)
	}
	return from
}

func (g *generator) at(from time.Time) time.Time {
	return from.Add(time.Duration(g.rng.Int64N(int64(g.step)))).UTC()
}

// appendWindows appends n Windows Security events as NXLog writes them,
// one JSON object a line: logons (4624), failed logons (4625) and process
// starts (4688).
func (g *generator) appendWindows(b []byte, n int) []byte {
	from := g.slice()
	for range n {
		host := fmt.Sprintf("WS-%03d.corp.example", g.rng.IntN(assets))
		user := fmt.Sprintf("user%03d", g.rng.IntN(300))
		ip := fmt.Sprintf("10.20.%d.%d", g.rng.IntN(4), g.rng.IntN(250)+1)
		ts := g.at(from).Format("2006-01-02T15:04:05.000Z")
		switch k := g.rng.IntN(10); {
		case k < 5:
			b = fmt.Appendf(b, `{"@timestamp":"%s","EventID":4624,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
				`"TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3","IpAddress":"%s","IpPort":"%d","ProcessName":"-",`+
				`"Message":"An account was successfully logged on."}`, ts, host, user, ip, 49152+g.rng.IntN(16000))
		case k < 7:
			b = fmt.Appendf(b, `{"@timestamp":"%s","EventID":4625,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
				`"TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3","IpAddress":"%s","IpPort":"%d","Status":"0xc000006d",`+
				`"SubStatus":"0xc000006a","Message":"An account failed to log on."}`, ts, host, user, ip, 49152+g.rng.IntN(16000))
		default:
			b = fmt.Appendf(b, `{"@timestamp":"%s","EventID":4688,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
				`"SubjectUserName":"%s","NewProcessName":"C:\\Windows\\System32\\cmd.exe","CommandLine":"cmd.exe /c whoami /all",`+
				`"ParentProcessName":"C:\\Windows\\explorer.exe","Message":"A new process has been created."}`, ts, host, user)
		}
		b = append(b, '\n')
	}
	return b
}

// appendSyslog appends n syslog lines: sshd failures and logons, sudo
// commands, and pfSense filterlog blocks.
func (g *generator) appendSyslog(b []byte, n int) []byte {
	from := g.slice()
	for range n {
		ts := g.at(from).Format(time.RFC3339Nano)
		host := fmt.Sprintf("srv-%03d", g.rng.IntN(assets))
		src := g.indicator()
		if src[0] == 'd' {
			src = fmt.Sprintf("203.0.113.%d", g.rng.IntN(250)+1)
		}
		switch k := g.rng.IntN(10); {
		case k < 4:
			b = fmt.Appendf(b, "<86>1 %s %s sshd %d - - Failed password for root from %s port %d ssh2", ts, host, g.rng.IntN(30000), src, 1024+g.rng.IntN(60000))
		case k < 5:
			b = fmt.Appendf(b, "<86>1 %s %s sshd %d - - Accepted publickey for deploy from 10.20.0.%d port %d ssh2", ts, host, g.rng.IntN(30000), g.rng.IntN(250)+1, 1024+g.rng.IntN(60000))
		case k < 6:
			b = fmt.Appendf(b, "<86>1 %s %s sudo - - -   deploy : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/systemctl restart app", ts, host)
		default:
			b = fmt.Appendf(b, "<134>1 %s fw-01 filterlog 92653 - - 7,,,1000000102,vtnet0,match,block,in,4,0x0,,64,19008,0,DF,6,tcp,60,%s,10.20.%d.%d,%d,%d,0,S,523876198,,64240,,mss",
				ts, src, g.rng.IntN(4), g.rng.IntN(250)+1, 1024+g.rng.IntN(60000), []int{22, 80, 443, 445, 3389}[g.rng.IntN(5)])
		}
		b = append(b, '\n')
	}
	return b
}
