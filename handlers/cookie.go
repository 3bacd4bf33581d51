package handlers

import (
	"net/http"
	"net/url"
	"time"
)

// The web console's session: the same signed session token as the API's
// bearer, but in a cookie page scripts cannot read (HttpOnly), sent only
// to /api on this site over HTTPS. Because a browser attaches a cookie by
// itself, a request it authenticates must also prove it came from the
// console: a header a cross-site form cannot send (and a cross-site script
// cannot send without a CORS preflight this server never grants), and an
// Origin, when the browser gives one, of this very site.
const (
	sessionCookieName = "garrison_session"
	sessionCookiePath = "/api"
	// ConsoleHeader marks requests made by the console (value "1"): login,
	// registration, refresh and password change then answer with the
	// session cookie instead of a token in the body.
	ConsoleHeader = "X-Garrison-Console"
)

// MsgCrossSite is the 403 of a cookie-authenticated request that did not
// come from the console itself.
const MsgCrossSite = "Cross-site request refused: a console session needs the " + ConsoleHeader + " header from this site"

// fromConsole reports whether the console made the request.
func fromConsole(r *http.Request) bool { return r.Header.Get(ConsoleHeader) == "1" }

// sessionCookie returns the console's session token, when the request has
// no Authorization header (a bearer wins) but carries the cookie.
func sessionCookie(r *http.Request) (string, bool) {
	if len(r.Header.Values("Authorization")) > 0 {
		return "", false
	}
	c, err := r.Cookie(sessionCookieName)
	if err != nil || c.Value == "" {
		return "", false
	}
	return c.Value, true
}

// sameSite refuses a cookie-authenticated request that a page of another
// site could have made.
func sameSite(r *http.Request) error {
	if !fromConsole(r) {
		return forbidden(MsgCrossSite)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return forbidden(MsgCrossSite)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host || u.Scheme != "https" {
			return forbidden(MsgCrossSite)
		}
	}
	return nil
}

// signedInCookieName is a cookie pages may read, holding no secret: it
// tells the console a session cookie was issued, so that a visitor who
// never signed in costs no refused request.
const signedInCookieName = "garrison_signed_in"

// setSessionCookie hands the console its session.
func setSessionCookie(w http.ResponseWriter, token string, expires time.Time, now time.Time) {
	maxAge := max(1, int(expires.Sub(now).Seconds()))
	http.SetCookie(w, &http.Cookie{Name: sessionCookieName, Value: token, Path: sessionCookiePath,
		Expires: expires, MaxAge: maxAge, HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: signedInCookieName, Value: "1", Path: "/",
		Expires: expires, MaxAge: maxAge, Secure: true, SameSite: http.SameSiteStrictMode})
}

// clearSessionCookie ends the console's session in the browser.
func clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookieName, Value: "", Path: sessionCookiePath, MaxAge: -1,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: signedInCookieName, Value: "", Path: "/", MaxAge: -1,
		Secure: true, SameSite: http.SameSiteStrictMode})
}
