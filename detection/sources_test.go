package detection

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/sigma"
	"garrison/telemetry"
)

// Each source's records reach the shipped rules written for it, by its
// own field names: Zeek logs (product zeek, the log as service; dns also
// the dns category), syslog lines (product linux, service syslog and the
// program's), auditd records, Sysmon for Linux and FortiGate's key=value
// lines. Each case fires its rule, and the benign record beside it (one
// value changed) does not. The records are in the sources' real shapes
// (the Zeek lines are OTRF's APT29 records with the telling value set).
func TestSourcesReachTheirRules(t *testing.T) {
	const sysmonLinux = `<134>Nov 20 10:00:00 web1 sysmon: <Event><System><Provider Name="Linux-Sysmon" Guid="{ff032593-a8d3-4f13-b0d6-01fc615a0f97}"/>` +
		`<EventID>1</EventID><Version>5</Version><Level>4</Level><Task>1</Task><TimeCreated SystemTime="2026-11-20T10:00:00.000000000Z"/>` +
		`<Channel>Linux-Sysmon/Operational</Channel><Computer>web1</Computer></System><EventData><Data Name="ProcessId">37869</Data>` +
		`<Data Name="Image">/usr/bin/chattr</Data><Data Name="CommandLine">chattr %s /etc/passwd</Data><Data Name="User">root</Data>` +
		`<Data Name="ParentImage">/usr/bin/bash</Data></EventData></Event>`
	cases := []struct {
		name, format string
		fires, quiet string // the same record, firing the rule and not
		rule         string
	}{
		{"zeek dce_rpc", telemetry.FormatZeek,
			`{"@stream":"dce_rpc","ts":1588205520.96246,"uid":"CDQRH83UIpbjplJKBc","id_orig_h":"10.0.1.4","id_orig_p":60620,"id_resp_h":"10.0.0.4","id_resp_p":135,"named_pipe":"135","endpoint":"spoolss","operation":"RpcAddMonitor"}`,
			`{"@stream":"dce_rpc","ts":1588205520.96246,"uid":"CDQRH83UIpbjplJKBc","id_orig_h":"10.0.1.4","id_orig_p":60620,"id_resp_h":"10.0.0.4","id_resp_p":135,"named_pipe":"135","endpoint":"spoolss","operation":"RpcOpenPrinter"}`,
			"53389db6-ba46-48e3-a94c-e0f2cefe1583"},
		{"zeek smb_files", telemetry.FormatZeek,
			`{"@stream":"smb_files","ts":1588205521.659592,"id_orig_h":"10.0.1.4","id_orig_p":60624,"id_resp_h":"10.0.0.4","id_resp_p":445,"action":"SMB::FILE_OPEN","path":"\\\\*\\IPC$","name":"spoolss"}`,
			`{"@stream":"smb_files","ts":1588205521.659592,"id_orig_h":"10.0.1.4","id_orig_p":60624,"id_resp_h":"10.0.0.4","id_resp_p":445,"action":"SMB::FILE_OPEN","path":"\\\\*\\IPC$","name":"lsarpc"}`,
			"bae2865c-5565-470d-b505-9496c87d0c30"},
		{"zeek kerberos", telemetry.FormatZeek,
			`{"@stream":"kerberos","ts":1588205198.908336,"id_orig_h":"10.0.1.4","id_orig_p":60595,"id_resp_h":"10.0.0.4","id_resp_p":88,"request_type":"TGS","client":"pbeesly/DMEVALS.LOCAL","service":"cifs/NEWYORK","cipher":"rc4-hmac"}`,
			`{"@stream":"kerberos","ts":1588205198.908336,"id_orig_h":"10.0.1.4","id_orig_p":60595,"id_resp_h":"10.0.0.4","id_resp_p":88,"request_type":"TGS","client":"pbeesly/DMEVALS.LOCAL","service":"cifs/NEWYORK","cipher":"aes256-cts-hmac-sha1-96"}`,
			"503fe26e-b5f2-4944-a126-eab405cc06e5"},
		{"zeek x509", telemetry.FormatZeek,
			`{"@stream":"x509","ts":1588205718.382302,"id":"Fdyyav3Kzkn85SDXJi","certificate_version":3,"certificate_serial":"8BB00EE","certificate_subject":"CN=Major Cobalt Strike"}`,
			`{"@stream":"x509","ts":1588205718.382302,"id":"Fdyyav3Kzkn85SDXJi","certificate_version":3,"certificate_serial":"06743FC495E54B7B","certificate_subject":"CN=conn.sons.info"}`,
			"7100f7e3-92ce-4584-b7b7-01b40d3d4118"},
		{"zeek dns, the dns category", telemetry.FormatZeek,
			"#separator \\x09\n#path\tdns\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tquery\tqtype_name\trcode_name\tZ\n" +
				"1693975983.1\tCa1\t172.18.39.6\t51234\t172.18.39.2\t53\tudp\tx7k2.oast.fun\tA\tNOERROR\t0\n",
			"#separator \\x09\n#path\tdns\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tquery\tqtype_name\trcode_name\tZ\n" +
				"1693975983.1\tCa1\t172.18.39.6\t51234\t172.18.39.2\t53\tudp\twww.example.com\tA\tNOERROR\t0\n",
			"aff715fa-4dd5-497a-8db3-910bea555566"},
		{"syslog cron", telemetry.FormatSyslog,
			"Nov 20 10:00:00 web1 crontab[2031]: (root) REPLACE (root)", "Nov 20 10:00:00 web1 crontab[2031]: (root) LIST (root)",
			"af202fd3-7bff-4212-a25a-fb34606cfcbe"},
		{"syslog sshd", telemetry.FormatSyslog,
			"<38>Nov 20 10:00:00 web1 sshd[812]: fatal: Local: crc32 compensation attack: network attack detected",
			"<38>Nov 20 10:00:00 web1 sshd[812]: Accepted publickey for deploy from 10.0.0.5 port 50112 ssh2",
			"e76b413a-83d0-4b94-8e4c-85db4a5b8bdc"},
		{"syslog clamav", telemetry.FormatSyslog,
			"Nov 20 10:00:00 mail1 clamd[991]: /var/spool/x.exe: Win.Trojan.Agent-1 FOUND",
			"Nov 20 10:00:00 mail1 clamd[991]: /var/spool/x.exe: OK",
			"36aa86ca-fd9d-4456-814e-d3b1b8e1e0bb"},
		{"auditd EXECVE", telemetry.FormatSyslog,
			`type=EXECVE msg=audit(1684329817.579:2995): argc=3 a0="chattr" a1="-i" a2="/etc/passwd"`,
			`type=EXECVE msg=audit(1684329817.579:2995): argc=3 a0="chattr" a1="+a" a2="/var/log/app.log"`,
			"a5b977d6-8a81-4475-91b9-49dbfcd941f7"},
		{"Sysmon for Linux", telemetry.FormatSyslog,
			strings.Replace(sysmonLinux, "%s", "-i", 1), strings.Replace(sysmonLinux, "%s", "+a", 1),
			"34979410-e4b5-4e5d-8cfb-389fdff05c12"},
		{"FortiGate", telemetry.FormatSyslog,
			`<189>date=2026-11-20 time=10:00:00 devname="fw-604" devid="FG100E" logid="0100044547" type="event" subtype="system" level="information" vd="root" user="admin" ui="GUI(10.0.0.9)" action="Add" cfgpath="firewall.policy" cfgobj="7" msg="Add firewall.policy 7"`,
			`<189>date=2026-11-20 time=10:00:00 devname="fw-604" devid="FG100E" logid="0100044547" type="event" subtype="system" level="information" vd="root" user="admin" ui="GUI(10.0.0.9)" action="Edit" cfgpath="firewall.policy" cfgobj="7" msg="Edit firewall.policy 7"`,
			"f24ab7a8-f09a-4319-82c1-915586aa642b"},
	}
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	fired := func(t *testing.T, format, body string) []string {
		res, err := telemetry.Parse(format, []byte(body), time.Now())
		if err != nil || len(res.Records) != 1 {
			t.Fatalf("%v: %+v", err, res)
		}
		ev, sources := Input(res.Records[0].Raw)
		var ids []string
		for _, r := range cat.Engine().Match(ev, sources, nil) {
			ids = append(ids, r.ID)
		}
		return ids
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ids := fired(t, c.format, c.fires); !slices.Contains(ids, c.rule) {
				t.Errorf("fires %v, not %s", ids, c.rule)
			}
			if ids := fired(t, c.format, c.quiet); slices.Contains(ids, c.rule) {
				t.Errorf("the benign record fires %s too", c.rule)
			}
		})
	}
}

// Real logs of the sources fire what the shipped rules say of them, and
// no more: OTRF's APT29 and LSASS-dump Zeek logs (the campaign's traffic
// holds none of the Zeek rules' indicators) and the real syslog samples
// of telemetry/testdata (sshd, PAM, sudo, firewalls, FortiGate, auditd).
func TestRealLogsFire(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../telemetry/testdata/zeek/*/*.log", "../telemetry/testdata/syslog/*/*.log",
		"../telemetry/testdata/syslog/*/*/*.log", filepath.Join(sigmaData, "..", "zeek", "otrf_*", "*.log")} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("%d sample logs found", len(files))
	}
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	fired := map[string]int{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		format := telemetry.FormatSyslog
		if strings.Contains(f, "/zeek/") {
			format = telemetry.FormatZeek
		}
		res, err := telemetry.Parse(format, body, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			ev, sources := Input(r.Raw)
			if ev == nil {
				t.Fatalf("%s line %d: no fields for rules", f, r.Line)
			}
			records++
			for _, m := range cat.Engine().Match(ev, sources, nil) {
				fired[m.Title]++
			}
		}
	}
	if records < 9000 || len(fired) != 0 {
		t.Errorf("%d records, fired %v", records, fired)
	}
}

// The engine's index and the straightforward evaluator agree on the new
// sources' records as on Windows events.
func TestSourcesIndexedEqualsEach(t *testing.T) {
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	ev := sigma.Event{"message": "cat /dev/null > ~/.bash_history; history -c", "program": "bash"}
	sources := []sigma.Logsource{{Product: "linux"}, {Product: "linux", Service: "syslog"}}
	got, want := cat.Engine().Match(ev, sources, nil), cat.Engine().MatchEach(ev, sources, nil)
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("indexed %d, each %d", len(got), len(want))
	}
}
