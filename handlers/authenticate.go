package handlers

import (
	"net/http"
	"strings"

	"garrison/account"
	"garrison/credential"
)

// authenticate reads the request's credential (the console's session
// cookie when there is no Authorization header, else the bearer) and asks
// the account rules who it speaks for.
func (a *API) authenticate(r *http.Request) (Principal, error) {
	if value, ok := sessionCookie(r); ok {
		if err := sameSite(r); err != nil {
			return Principal{}, err
		}
		if credential.LooksLikeAPIKey(value) { // the cookie is only ever a session
			return Principal{ViaCookie: true}, account.ErrTokenInvalid
		}
		c, err := a.Accounts.Authenticate(r.Context(), value, r.Header.Get(OrgHeader))
		return Principal{Credential: c, ViaCookie: true}, err
	}
	value, err := bearer(r)
	if err != nil {
		return Principal{}, err
	}
	c, err := a.Accounts.Authenticate(r.Context(), value, r.Header.Get(OrgHeader))
	return Principal{Credential: c}, err
}

// OrgHeader names the organization a request acts in when it is not the
// credential's own: a provider's key (or staff) acting in a client.
const OrgHeader = "X-Garrison-Org"

// bearer extracts the credential of an Authorization header. Credentials in
// the query string are never looked at.
func bearer(r *http.Request) (string, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 || (len(h) == 1 && strings.TrimSpace(h[0]) == "") {
		return "", Unauthorized(MsgNoToken)
	}
	scheme, value, ok := strings.Cut(h[0], " ")
	if len(h) > 1 || !ok || !strings.EqualFold(scheme, "Bearer") || value == "" || strings.ContainsAny(value, " \t") {
		return "", Unauthorized(MsgBadTokenFormat)
	}
	return value, nil
}
