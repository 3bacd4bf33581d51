package contact

import (
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"https://hooks.slack.com/services/T0/B0/x", ""},
		{"http://mattermost.office.lan:8065/hooks/abc", ""},
		{"HTTPS://Example.COM/in", ""},
		{"https://10.0.0.5/hook", ""},
		{"https://[2001:db8::1]:8443/hook", ""},
		{"", "must be an https:// or http:// URL"},
		{"hooks.slack.com/services/x", "must be an https:// or http:// URL"},
		{"ftp://example.com/x", "must be an https:// or http:// URL"},
		{"javascript:alert(1)", "must be an https:// or http:// URL"},
		{"file:///etc/passwd", "must be an https:// or http:// URL"},
		{"http:example.com", "must be an https:// or http:// URL"},
		{" https://example.com", "must be an https:// or http:// URL"},
		{"https://exa mple.com/", "must be an https:// or http:// URL"},
		{"https://example.com/\n", "must be an https:// or http:// URL"},
		{"https:///path", "must name a host"},
		{"https://:443/path", "must name a host"},
		{"https://user:pass@example.com/", "must not hold a user name or password"},
		{"https://user@example.com/", "must not hold a user name or password"},
		{"https://example.com/" + strings.Repeat("a", 2048), "must be at most 2048 bytes"},
	}
	for _, tc := range tests {
		if got := CheckURL(tc.in); got != tc.want {
			t.Errorf("CheckURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
