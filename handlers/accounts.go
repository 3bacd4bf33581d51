package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"garrison/credential"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// Lifetimes of single-use tokens.
const (
	resetTokenTTL  = time.Hour
	verifyTokenTTL = time.Hour
)

// sessionPayload is the answer of register, login, refresh and
// change-password: at the top level and again under data (decisions.md).
type sessionPayload struct {
	Token     string   `json:"token"`
	ExpiresAt string   `json:"expires_at"`
	User      userView `json:"user"`
}

type sessionBody struct {
	Success bool `json:"success"`
	sessionPayload
	Data sessionPayload `json:"data"`
}

func (a *API) writeSession(w http.ResponseWriter, status int, u store.User, authTime time.Time) error {
	s, err := a.Sessions.Issue(u, authTime)
	if err != nil {
		return err
	}
	p := sessionPayload{Token: s.Token, ExpiresAt: timestamp.Format(s.ExpiresAt), User: newUserView(u)}
	writeJSON(w, status, sessionBody{Success: true, sessionPayload: p, Data: p})
	return nil
}

type messageView struct {
	Message string `json:"message"`
}

func checkPassword(p *valid.Problems, field, password string) {
	if msg := credential.PasswordProblem(password); msg != "" {
		p.Add(field, msg)
	}
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
	req.Email = strings.ToLower(strings.TrimSpace(req.Email))
	var p valid.Problems
	p.Check(valid.Email(req.Email), "email", "must be a valid e-mail address")
	checkPassword(&p, "password", req.Password)
	p.Check(valid.Name(req.Name), "name", "must be 1 to 100 printable characters")
	p.Check(req.Org == "" || valid.Name(req.Org), "org", "must be 1 to 100 printable characters")
	p.Check(req.InviteToken == "" || req.Org == "", "org", "cannot be given with invite_token: the invite names the organization")
	if err := p.Err(); err != nil {
		return err
	}
	orgName := req.Org
	if orgName == "" {
		orgName = req.Email[strings.LastIndexByte(req.Email, '@')+1:]
	}
	hash, err := a.Passwords.Hash(r.Context(), req.Password)
	if err != nil {
		return err
	}
	token, tokenHash := credential.NewToken()
	account := store.NewAccount{
		Email: req.Email, Name: req.Name, PasswordHash: hash, OrgName: orgName, Plan: a.DefaultPlan,
		Verify:     store.UserToken{Hash: tokenHash, Purpose: store.PurposeVerify, ExpiresAt: a.Now().Add(verifyTokenTTL)},
		VerifyMail: a.verifyMail(req.Email, token),
	}
	if req.InviteToken != "" {
		account.InviteHash = credential.Hash(req.InviteToken)
	}
	u, err := a.Store.Register(r.Context(), account)
	switch {
	case errors.Is(err, store.ErrInvalidToken):
		return valid.Field("invite_token", "is invalid, expired, already used, or for another e-mail address")
	case err != nil:
		return err
	}
	a.MailQueued()
	return a.writeSession(w, http.StatusCreated, u, a.Now())
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
	var p valid.Problems
	p.Check(req.Email != "", "email", "is required")
	p.Check(req.Password != "", "password", "is required")
	if err := p.Err(); err != nil {
		return err
	}
	// Guessing one account's password is throttled per address tried,
	// whether or not it exists, on top of the per-IP buckets.
	target := strings.ToLower(strings.TrimSpace(req.Email))
	if d := a.Limits.loginTarget.Peek(target); !d.Allowed {
		return a.applyDecision(w, r, d)
	}
	failed := func() error {
		if err := a.charge(w, r, a.Limits.loginTarget, target); err != nil {
			return err
		}
		return Unauthorized(MsgBadLogin)
	}
	u, err := a.Store.UserByEmail(r.Context(), req.Email)
	if errors.Is(err, store.ErrNotFound) {
		// Spend the same time as a real check so timing tells nothing.
		if err := a.Passwords.VerifyNobody(r.Context(), req.Password); err != nil {
			return err
		}
		return failed()
	}
	if err != nil {
		return err
	}
	ok, rehash, err := a.Passwords.Verify(r.Context(), req.Password, u.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return failed()
	}
	if rehash {
		if hash, err := a.Passwords.Hash(r.Context(), req.Password); err == nil {
			if err := a.Store.SetPassword(r.Context(), u.ID, hash, false); err != nil {
				a.Log.WarnContext(r.Context(), "upgrade password hash", "user_id", u.ID, "err", err)
			}
		}
	}
	return a.writeSession(w, http.StatusOK, u, a.Now())
}

func (a *API) logout(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if err := a.Store.RevokeSession(r.Context(), p.TokenID, p.ExpiresAt); err != nil && !errors.Is(err, store.ErrSessionEnded) {
		return err
	}
	writeData(w, http.StatusOK, messageView{"Logged out"})
	return nil
}

func (a *API) logoutAll(w http.ResponseWriter, r *http.Request) error {
	if err := a.Store.EndSessions(r.Context(), principalFrom(r.Context()).User.ID); err != nil {
		return err
	}
	writeData(w, http.StatusOK, messageView{"Every session of this user has ended"})
	return nil
}

// refresh trades a valid token for a new one and retires the old one. The
// chain of refreshes ends MaxSession after the password was last given.
func (a *API) refresh(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	if a.Now().After(p.AuthTime.Add(a.Sessions.MaxSession())) {
		return Unauthorized(MsgTokenExpired)
	}
	if err := a.Store.RevokeSession(r.Context(), p.TokenID, p.ExpiresAt); err != nil {
		return err // ErrSessionEnded when refreshed concurrently
	}
	return a.writeSession(w, http.StatusOK, p.User, p.AuthTime)
}

func (a *API) me(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	org, err := a.Store.Org(r.Context(), p.OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, struct {
		userView
		Organization orgView `json:"organization"`
	}{newUserView(p.User), newOrgView(org)})
	return nil
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
	var p valid.Problems
	p.Check(req.CurrentPassword != "", "current_password", "is required")
	checkPassword(&p, "new_password", req.NewPassword)
	p.Check(req.NewPassword != req.CurrentPassword, "new_password", "must differ from the current password")
	if err := p.Err(); err != nil {
		return err
	}
	user := principalFrom(r.Context()).User
	ok, _, err := a.Passwords.Verify(r.Context(), req.CurrentPassword, user.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return valid.Field("current_password", "is incorrect")
	}
	hash, err := a.Passwords.Hash(r.Context(), req.NewPassword)
	if err != nil {
		return err
	}
	if err := a.Store.SetPassword(r.Context(), user.ID, hash, true); err != nil {
		return err
	}
	user, err = a.Store.UserByID(r.Context(), user.ID)
	if err != nil {
		return err
	}
	return a.writeSession(w, http.StatusOK, user, a.Now())
}

type emailRequest struct {
	Email string `json:"email"`
}

// resetRequest answers the same, in the same time, whether or not the
// address has an account: it only queues the request (ProcessResetRequests).
func (a *API) resetRequest(w http.ResponseWriter, r *http.Request) error {
	var req emailRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	email := strings.ToLower(strings.TrimSpace(req.Email))
	if !valid.Email(email) {
		return valid.Field("email", "must be a valid e-mail address")
	}
	if err := a.Store.QueueResetRequest(r.Context(), email); err != nil {
		return err
	}
	a.MailQueued()
	writeData(w, http.StatusOK, messageView{"If an account exists for this address, a password reset link has been sent to it."})
	return nil
}

// ProcessResetRequests turns queued reset requests into tokens and mails;
// the mail worker runs it before each delivery round.
func (a *API) ProcessResetRequests(ctx context.Context) error {
	for {
		reqs, err := a.Store.ResetRequests(ctx, 50)
		if err != nil || len(reqs) == 0 {
			return err
		}
		for _, req := range reqs {
			var t store.UserToken
			var m store.Mail
			u, err := a.Store.UserByEmail(ctx, req.Email)
			switch {
			case err == nil:
				token, hash := credential.NewToken()
				t = store.UserToken{Hash: hash, Purpose: store.PurposeReset, ExpiresAt: a.Now().Add(resetTokenTTL)}
				m = a.resetMail(u.Email, token)
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			if err := a.Store.CompleteResetRequest(ctx, req.ID, u.ID, t, m); err != nil {
				return err
			}
		}
	}
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
	var p valid.Problems
	p.Check(req.Token != "", "token", "is required")
	checkPassword(&p, "new_password", req.NewPassword)
	if err := p.Err(); err != nil {
		return err
	}
	// Refuse a bad token before hashing: anonymous callers get no free CPU.
	tokenHash := credential.Hash(req.Token)
	usable, err := a.Store.UserTokenValid(r.Context(), tokenHash, store.PurposeReset)
	if err != nil {
		return err
	}
	if !usable {
		return valid.Field("token", "is invalid, expired or already used")
	}
	hash, err := a.Passwords.Hash(r.Context(), req.NewPassword)
	if err != nil {
		return err
	}
	err = a.Store.ResetPassword(r.Context(), tokenHash, hash)
	if errors.Is(err, store.ErrInvalidToken) || errors.Is(err, store.ErrNotFound) {
		return valid.Field("token", "is invalid, expired or already used")
	}
	if err != nil {
		return err
	}
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
	if req.Token == "" {
		return valid.Field("token", "is required")
	}
	u, err := a.Store.VerifyEmail(r.Context(), credential.Hash(req.Token))
	if errors.Is(err, store.ErrInvalidToken) || errors.Is(err, store.ErrNotFound) {
		return valid.Field("token", "is invalid, expired or already used")
	}
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newUserView(u))
	return nil
}
