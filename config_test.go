package main

import "testing"

// TestValidDNSName: the names --tls-hosts accepts for the certificate.
func TestValidDNSName(t *testing.T) {
	for name, want := range map[string]bool{
		"garrison.example": true, "*.garrison.example": true, "localhost": true, "a-b.example": true,
		"xn--dp-xka.example": true,
		"":                   false, "*.": false, "bad host!": false, "under_score.example": false, "-lead.example": false,
		"trail-.example": false, "a..b": false, "a.*.example": false, "dot.": false,
		string(make([]byte, 64)) + ".example": false,
	} {
		if got := validDNSName(name); got != want {
			t.Errorf("validDNSName(%q) = %v, want %v", name, got, want)
		}
	}
}
