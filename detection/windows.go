package detection

import (
	"strconv"
	"strings"

	"garrison/sigma"
	"garrison/telemetry"
)

// A Windows event is what Sigma's Windows rules read: its EventData by
// field name, beside EventID, Channel, Provider_Name and Computer, under
// the log sources its channel and id belong to (pySigma's Windows and
// Sysmon pipelines: a category names Sysmon events by id, a service names
// a channel).

// sysmonCategories are the categories of Sysmon's event ids.
var sysmonCategories = map[int][]string{
	1: {"process_creation"}, 2: {"file_change"}, 3: {"network_connection"}, 4: {"sysmon_status"},
	5: {"process_termination"}, 6: {"driver_load"}, 7: {"image_load"}, 8: {"create_remote_thread"},
	9: {"raw_access_thread"}, 10: {"process_access"}, 11: {"file_event"}, 12: {"registry_event"},
	13: {"registry_set", "registry_event"}, 14: {"registry_rename", "registry_event"}, 15: {"create_stream_hash"},
	16: {"sysmon_status"}, 17: {"pipe_created"}, 18: {"pipe_created"}, 19: {"wmi_event"}, 20: {"wmi_event"},
	21: {"wmi_event"}, 22: {"dns_query"}, 23: {"file_delete"}, 24: {"clipboard_capture"}, 25: {"process_tampering"},
	26: {"file_delete_detected"}, 27: {"file_block_executable"}, 28: {"file_block_shredding"},
	29: {"file_executable_detected"}, 255: {"sysmon_error"},
}

// windowsServices are the services of channels, by lower-case channel.
var windowsServices = map[string]string{
	"security":                             "security",
	"system":                               "system",
	"application":                          "application",
	"microsoft-windows-sysmon/operational": "sysmon",
	"microsoft-windows-taskscheduler/operational":                        "taskscheduler",
	"microsoft-windows-wmi-activity/operational":                         "wmi",
	"microsoft-windows-powershell/operational":                           "powershell",
	"windows powershell":                                                 "powershell-classic",
	"microsoft-windows-windows defender/operational":                     "windefend",
	"microsoft-windows-bits-client/operational":                          "bits-client",
	"microsoft-windows-dns-client/operational":                           "dns-client",
	"microsoft-windows-ntlm/operational":                                 "ntlm",
	"microsoft-windows-windows firewall with advanced security/firewall": "firewall-as",
	"microsoft-windows-codeintegrity/operational":                        "codeintegrity-operational",
	"microsoft-windows-smbclient/security":                               "smbclient-security",
	"microsoft-windows-appxdeployment-server/operational":                "appxdeployment-server",
	"microsoft-windows-terminalservices-localsessionmanager/operational": "terminalservices-localsessionmanager",
	"microsoft-windows-printservice/admin":                               "printservice-admin",
	"microsoft-windows-printservice/operational":                         "printservice-operational",
	"microsoft-windows-openssh/operational":                              "openssh",
	"microsoft-windows-capi2/operational":                                "capi2",
	"microsoft-windows-dhcp-server/operational":                          "dhcp",
	"microsoft-windows-security-mitigations/kernel mode":                 "security-mitigations",
	"microsoft-windows-security-mitigations/user mode":                   "security-mitigations",
	"microsoft-windows-shell-core/operational":                           "shell-core",
	"microsoft-windows-appmodel-runtime/admin":                           "appmodel-runtime",
	"microsoft-windows-diagnosis-scripted/operational":                   "diagnosis-scripted",
	"microsoft-windows-ldap-client/debug":                                "ldap",
	"msexchange management":                                              "msexchange-management",
}

// linuxSysmon is the channel of Sysmon for Linux, lower-case.
const linuxSysmon = "linux-sysmon/operational"

// security4688 names the fields of a Security 4688 process creation as
// Sysmon's, which process_creation rules are written against.
var security4688 = map[string]string{
	"NewProcessName":    "Image",
	"ParentProcessName": "ParentImage",
	"NewProcessId":      "ProcessId",
	"SubjectUserName":   "User",
	"MandatoryLabel":    "IntegrityLevel",
	"SubjectLogonId":    "LogonId",
}

// windowsEvent is a Windows record as rules read it, and the log sources
// it belongs to.
func windowsEvent(raw *telemetry.Raw) (sigma.Event, []sigma.Logsource) {
	e := make(sigma.Event, raw.Len()+4)
	raw.FieldsInto(e)
	e["EventID"] = strconv.Itoa(raw.EventID)
	if raw.Channel != "" {
		e["Channel"] = raw.Channel
	}
	if raw.Provider != "" {
		e["Provider_Name"] = raw.Provider
	}
	channel := strings.ToLower(raw.Channel)
	product, service := "windows", windowsServices[channel]
	if channel == linuxSysmon { // Sysmon for Linux writes Sysmon's events, which Linux rules read
		product, service = "linux", "sysmon"
	}
	sources := []sigma.Logsource{{Product: product}}
	if service != "" {
		sources = append(sources, sigma.Logsource{Product: product, Service: service})
	}
	category := func(c string) { sources = append(sources, sigma.Logsource{Product: product, Category: c}) }
	switch {
	case service == "sysmon":
		for _, c := range sysmonCategories[raw.EventID] {
			category(c)
		}
		if raw.EventID == 12 {
			switch e["EventType"] {
			case "CreateKey":
				category("registry_add")
			case "DeleteKey", "DeleteValue":
				category("registry_delete")
			}
		}
	case service == "security" && raw.EventID == 4688:
		for from, to := range security4688 {
			if v, ok := e[from]; ok {
				e[to] = v
			}
		}
		category("process_creation")
	case service == "powershell" && raw.EventID == 4104:
		category("ps_script")
	case service == "powershell" && raw.EventID == 4103:
		category("ps_module")
	case service == "powershell-classic" && raw.EventID == 400:
		category("ps_classic_start")
	case service == "powershell-classic" && raw.EventID == 600:
		category("ps_classic_provider_start")
	}
	// A rule may leave the product out: it reads the same events.
	for _, src := range sources[1:] {
		src.Product = ""
		sources = append(sources, src)
	}
	return e, sources
}
