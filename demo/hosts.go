package demo

import (
	"fmt"

	"garrison/intel"
	"garrison/store"
)

// The demo client's network: every host an event names is in the
// inventory, and DNS telemetry comes from the workstations' addresses.
const demoOwner = "Smith Dental"

// demoServers run software some of the demo CVEs affect (and some they do
// not: the mail server runs a fixed Exim).
var demoServers = []intel.AssetInput{
	{Hostname: "web-01.demo.local", IP: "10.10.1.20", OS: "Ubuntu 10.04", Owner: demoOwner, Software: []store.Software{
		{Vendor: "php", Product: "php", Version: "5.3.10"}, {Vendor: "phpmyadmin", Product: "phpmyadmin", Version: "3.1.2"},
		{Vendor: "linux", Product: "linux_kernel", Version: "2.6.32"}}},
	{Hostname: "mail-01.demo.local", IP: "10.10.1.25", OS: "Debian 6", Owner: demoOwner, Software: []store.Software{
		{Vendor: "exim", Product: "exim", Version: "4.72"}, {Vendor: "linux", Product: "linux_kernel", Version: "2.6.32"}}},
	{Hostname: "dc-01.demo.local", IP: "10.10.1.10", OS: "Windows Server 2022", Owner: demoOwner},
	{Hostname: "file-01.demo.local", IP: "10.10.1.11", OS: "Windows Server 2019", Owner: demoOwner},
	{Hostname: "edge-rtr.demo.local", IP: "10.10.0.1", OS: "Cisco IOS", Owner: demoOwner, Software: []store.Software{
		{Vendor: "cisco", Product: "ios", Version: "12.2(15)zj1"}}},
	{Hostname: "ws-frontdesk.demo.local", IP: "10.20.0.9", OS: "Windows 7", Owner: demoOwner, Software: []store.Software{
		{Vendor: "oracle", Product: "jre", Version: "1.5.0"}}},
}

// demoWorkstations is the number of ws-NN workstations, 10.20.0.11 up.
const demoWorkstations = 20

// ws names workstation n (1 to demoWorkstations).
func ws(n int) string { return fmt.Sprintf("ws-%02d.demo.local", n) }

// demoAssets is the whole inventory.
var demoAssets = func() []intel.AssetInput {
	out := append([]intel.AssetInput(nil), demoServers...)
	for n := 1; n <= demoWorkstations; n++ {
		out = append(out, intel.AssetInput{Hostname: ws(n), IP: fmt.Sprintf("10.20.0.%d", 10+n), OS: "Windows 11", Owner: demoOwner})
	}
	return out
}()

// demoClients are the addresses DNS queries come from: the workstations'
// and the front desk's.
var demoClients = func() []string {
	out := []string{"10.20.0.9"}
	for n := 1; n <= demoWorkstations; n++ {
		out = append(out, fmt.Sprintf("10.20.0.%d", 10+n))
	}
	return out
}()
