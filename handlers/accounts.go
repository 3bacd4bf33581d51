package handlers

import (
	"errors"
	"net/http"
	"time"

	"garrison/account"
	"garrison/audit"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// sessionPayload is the answer of register, login, refresh and
// change-password: at the top level and again under data (docs/api.md).
type sessionPayload struct {
	Token     string   `json:"token,omitempty"` // absent when the console gets a cookie
	ExpiresAt string   `json:"expires_at"`
	User      userView `json:"user"`
}

type sessionBody struct {
	Success bool `json:"success"`
	sessionPayload
	Data sessionPayload `json:"data"`
}

// writeSession answers with a new session: its token in the body, or, for
// the console, in the session cookie page scripts cannot read.
func (a *API) writeSession(w http.ResponseWriter, r *http.Request, status int, u store.User, authTime time.Time) error {
	s, err := a.Accounts.IssueSession(u, authTime)
	if err != nil {
		return err
	}
	return a.writeToken(w, r, status, u, s)
}

// writeToken answers a session token: in the body, or as the console's
// cookie when the console asked.
func (a *API) writeToken(w http.ResponseWriter, r *http.Request, status int, u store.User, s account.SessionToken) error {
	p := sessionPayload{Token: s.Token, ExpiresAt: timestamp.Format(s.ExpiresAt), User: newUserView(u)}
	if fromConsole(r) {
		setSessionCookie(w, s.Token, s.ExpiresAt, a.Now())
		p.Token = ""
	}
	writeJSON(w, status, sessionBody{Success: true, sessionPayload: p, Data: p})
	return nil
}

type messageView struct {
	Message string `json:"message"`
}

type registerRequest struct {
	Email       string `json:"email"`
	Password    string `json:"password"`
	Name        string `json:"name"`
	Org         string `json:"org"`
	InviteToken string `json:"invite_token"`
}

func (a *API) register(w http.ResponseWriter, r *http.Request) error {
	var req registerRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	// With an invitation, an existing account joins with its password:
	// a try of that password, guarded like a sign-in.
	var g passwordGuard
	if req.InviteToken != "" {
		var err error
		if g, err = a.guardPassword(w, r, req.Email, req.Password); err != nil {
			return err
		}
	}
	reg, err := a.Accounts.Register(r.Context(), account.Registration(req))
	if errors.Is(err, account.ErrBadLogin) {
		return a.wrongPassword(w, r, g, reg.User, err)
	}
	if err != nil {
		return err
	}
	if reg.Claim != nil {
		writeData(w, http.StatusAccepted, claimView{Email: reg.Claim.Email, Status: "confirmation_pending",
			ExpiresAt: timestamp.Format(reg.Claim.ExpiresAt)})
		return nil
	}
	noteAudit(r, reg.User.OrgID, reg.User.ID)
	return a.writeSession(w, r, http.StatusCreated, reg.User, a.Now())
}

// claimView answers a registration for an address that an unconfirmed
// account, made through another organization's invitation, holds: the
// account is made when the mailbox confirms (docs/api.md).
type claimView struct {
	Email     string `json:"email"`
	Status    string `json:"status"`
	ExpiresAt string `json:"expires_at"`
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

func (a *API) login(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	g, err := a.guardPassword(w, r, req.Email, req.Password)
	if err != nil {
		return err
	}
	u, err := a.Accounts.Login(r.Context(), req.Email, req.Password)
	if errors.Is(err, account.ErrBadLogin) {
		return a.wrongPassword(w, r, g, u, err)
	}
	if err != nil {
		return err
	}
	a.Limits.known.add(g.target, g.client)
	noteAudit(r, u.OrgID, u.ID)
	// No session is given unless its sign-in is on the audit log.
	if err := a.auditNow(r, audit.Login); err != nil {
		return err
	}
	return a.writeSession(w, r, http.StatusOK, u, a.Now())
}

// passwordGuard is the address a password is tried for, and the client.
type passwordGuard struct {
	target, client, pair string
	known                bool // the client signed in to the address before
}

// guardPassword refuses a password try while its buckets are empty.
// Guessing one account's password is throttled per address tried and
// client, and per address tried whether or not it exists, on top of the
// per-IP buckets; the second spares the clients the account signed in
// from, so guesses from elsewhere cannot lock its owner out.
func (a *API) guardPassword(w http.ResponseWriter, r *http.Request, email, password string) (passwordGuard, error) {
	g := passwordGuard{target: valid.NormalEmail(email), client: a.clientKey(r)}
	g.pair, g.known = g.target+" "+g.client, a.Limits.known.has(g.target, g.client)
	if email == "" || password == "" {
		return g, nil
	}
	if d := a.Limits.loginPair.Peek(g.pair); !d.Allowed {
		return g, a.applyDecision(w, r, a.Limits.loginPair, d)
	}
	if d := a.Limits.loginTarget.Peek(g.target); !d.Allowed && !g.known {
		return g, a.applyDecision(w, r, a.Limits.loginTarget, d)
	}
	return g, nil
}

// wrongPassword answers a wrong password (err) for the address: on the
// audit log of the account's organization when it exists (an unknown
// address only in the request log), and charged to the password buckets.
func (a *API) wrongPassword(w http.ResponseWriter, r *http.Request, g passwordGuard, u store.User, err error) error {
	if u.ID != "" {
		noteAudit(r, u.OrgID, "")
		auditDetail(r, "user", u.ID)
		// Recorded before the answer: on a full disk, a refused sign-in
		// is refused as unavailable rather than answered unrecorded.
		if auditErr := a.auditNow(r, audit.LoginFailed); auditErr != nil {
			return auditErr
		}
	}
	if limitErr := a.charge(w, r, a.Limits.loginPair, g.pair); limitErr != nil {
		return limitErr
	}
	if limitErr := a.charge(w, r, a.Limits.loginTarget, g.target); limitErr != nil && !g.known {
		return limitErr
	}
	return err
}

type reauthenticateRequest struct {
	Password string `json:"password"`
}

// reauthenticate confirms the session's password again, for the actions
// that need one given recently; a wrong one spends the account's
// failed-login bucket like a login's.
func (a *API) reauthenticate(w http.ResponseWriter, r *http.Request) error {
	var req reauthenticateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	target := valid.NormalEmail(p.User.Email)
	if d := a.Limits.loginTarget.Peek(target); !d.Allowed {
		return a.applyDecision(w, r, a.Limits.loginTarget, d)
	}
	s, err := a.Accounts.Reauthenticate(r.Context(), p.Credential, req.Password)
	if errors.Is(err, account.ErrWrongPassword) {
		if limitErr := a.charge(w, r, a.Limits.loginTarget, target); limitErr != nil {
			return limitErr
		}
	}
	if err != nil {
		return err
	}
	return a.writeToken(w, r, http.StatusOK, p.User, s)
}

func (a *API) logout(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := a.Accounts.Logout(r.Context(), p.Credential); err != nil {
		return err
	}
	if p.ViaCookie {
		clearSessionCookie(w)
	}
	writeData(w, http.StatusOK, messageView{"Logged out"})
	return nil
}

func (a *API) logoutAll(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := a.Accounts.LogoutAll(r.Context(), p.Credential); err != nil {
		return err
	}
	if p.ViaCookie {
		clearSessionCookie(w)
	}
	writeData(w, http.StatusOK, messageView{"Every session of this user has ended"})
	return nil
}

// refresh trades a valid token for a new one and retires the old one.
func (a *API) refresh(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	s, err := a.Accounts.Refresh(r.Context(), p.Credential)
	if err != nil {
		return err
	}
	return a.writeToken(w, r, http.StatusOK, p.User, s)
}

func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	org, err := a.Accounts.Org(r.Context(), p.OrgID)
	if err != nil {
		return err
	}
	reach, err := a.Accounts.ReachOf(r.Context(), p.User.ID)
	if err != nil {
		return err
	}
	out := meView{userView: newUserView(p.User), Organization: newOrgView(org), Memberships: []membershipView{}, Clients: []reachView{}}
	if p.Via != "" {
		out.ActingThrough = &p.Via
	}
	for _, m := range reach.Memberships {
		out.Memberships = append(out.Memberships, membershipView{OrgID: m.Org.ID, OrgName: m.Org.Name, Kind: m.Org.Kind, Role: m.Role})
	}
	for _, c := range reach.Clients {
		out.Clients = append(out.Clients, reachView{ID: c.ID, Name: c.Name, ProviderID: c.ProviderID})
	}
	writeData(w, http.StatusOK, out)
	return nil
}

// meView is a session's user with where they may act: their memberships
// and the clients their provider staff memberships reach.
type meView struct {
	userView
	Organization  orgView          `json:"organization"`
	ActingThrough *string          `json:"acting_through"` // the provider whose staff the user acts as, in a client
	Memberships   []membershipView `json:"memberships"`
	Clients       []reachView      `json:"clients"`
}

type membershipView struct {
	OrgID   string `json:"org_id"`
	OrgName string `json:"org_name"`
	Kind    string `json:"kind"`
	Role    string `json:"role"`
}

type reachView struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	ProviderID string `json:"provider_id"`
}

type changePasswordRequest struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

// changePassword ends every session, this one included, and answers with a
// fresh token so the caller stays signed in.
func (a *API) changePassword(w http.ResponseWriter, r *http.Request) error {
	var req changePasswordRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, err := a.Accounts.ChangePassword(r.Context(), principalFrom(r.Context()).Credential, req.CurrentPassword, req.NewPassword)
	if err != nil {
		return err
	}
	return a.writeSession(w, r, http.StatusOK, u, a.Now())
}

type emailRequest struct {
	Email string `json:"email"`
}

// resetRequest answers the same, in the same time, whether or not the
// address has an account.
func (a *API) resetRequest(w http.ResponseWriter, r *http.Request) error {
	var req emailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := a.Accounts.RequestReset(r.Context(), req.Email); err != nil {
		return err
	}
	writeData(w, http.StatusOK, messageView{"If an account exists for this address, a password reset link has been sent to it."})
	return nil
}

type resetConfirmRequest struct {
	Token       string `json:"token"`
	NewPassword string `json:"new_password"`
}

func (a *API) resetConfirm(w http.ResponseWriter, r *http.Request) error {
	var req resetConfirmRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, err := a.Accounts.ConfirmReset(r.Context(), req.Token, req.NewPassword)
	if err != nil {
		return err
	}
	noteAudit(r, u.OrgID, u.ID)
	writeData(w, http.StatusOK, messageView{"Password reset. Every earlier session has ended; log in with the new password."})
	return nil
}

type tokenRequest struct {
	Token string `json:"token"`
}

func (a *API) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	var req tokenRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, err := a.Accounts.VerifyEmail(r.Context(), req.Token)
	if err != nil {
		return err
	}
	noteAudit(r, u.OrgID, u.ID)
	writeData(w, http.StatusOK, newUserView(u))
	return nil
}
