package contact

import (
	"net/url"
	"strings"
)

// maxURL bounds a receiver URL; Teams workflow URLs, the longest, are
// about 300 bytes.
const maxURL = 2048

// CheckURL judges a receiver URL as an admin gives it: absolute, http or
// https, a host, no user info, at most 2048 bytes. It returns what is
// wrong, for the admin to read, or "" when the URL will do. Where the
// host points is judged at connect time (see NewSender), since DNS may
// answer differently then.
func CheckURL(raw string) string {
	if len(raw) > maxURL {
		return "must be at most 2048 bytes"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Opaque != "" {
		return "must be an https:// or http:// URL"
	}
	if u.User != nil {
		return "must not hold a user name or password"
	}
	if u.Hostname() == "" || strings.ContainsAny(u.Hostname(), " \t") {
		return "must name a host"
	}
	return ""
}
