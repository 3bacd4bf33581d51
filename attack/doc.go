// Package attack is Garrison's embedded MITRE ATT&CK® knowledge for the
// threat-researcher agent: technique lookup, CVE → technique mappings, and
// keyword mapping of security event text to techniques.
//
// The data is compiled into the binary (go:embed) so the agent works offline:
// the ATT&CK v18.1 Enterprise technique catalog (mitre/cti) and two Center
// for Threat-Informed Defense CVE mapping sets (Apache-2.0). Attribution and
// terms are in data/NOTICE.md, which is embedded alongside.
//
// Everything is parsed once, on first use, from the embedded bytes and never
// panics: a malformed row is skipped at run time and fails the package tests.
// All functions are safe for concurrent use and return fresh slices the
// caller may modify.
package attack
