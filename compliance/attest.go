package compliance

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// Limits of an attestation.
const (
	maxNoteBytes = 2000
	maxURLBytes  = 2048
	// maxAttestation bounds expires_at: an attestation is evidence of a
	// moment, re-examined at least this often.
	maxAttestation = 3 * 365 * 24 * time.Hour
)

// AttestRequest is an administrator's statement about a manual control.
type AttestRequest struct {
	OrgID       string
	Framework   string
	ControlID   string
	Status      string
	Note        string
	EvidenceURL string
	ExpiresAt   *string // RFC 3339; nil: the attestation does not expire
	Actor       string
}

// Attested is a recorded attestation with its control, as the API shows it.
type Attested struct {
	Framework string `json:"framework"`
	ControlID string `json:"control_id"`
	Title     string `json:"title"`
	AttestationView
}

// Attest records the attestation of a control no check evidences. An
// unknown framework or control is store.ErrNotFound; a control that checks
// evidence is a conflict. It counts from the next audit on.
func (e *Engine) Attest(ctx context.Context, r AttestRequest) (Attested, error) {
	fw, ok := LookupFramework(r.Framework)
	if !ok {
		return Attested{}, store.ErrNotFound
	}
	c, ok := fw.Control(r.ControlID)
	if !ok {
		return Attested{}, store.ErrNotFound
	}
	var p valid.Problems
	p.Check(r.Status == Pass || r.Status == Fail || r.Status == NotApplicable, "status", "must be pass, fail or not_applicable")
	p.CheckText("note", r.Note, valid.TextRule{Max: maxNoteBytes})
	if r.EvidenceURL != "" {
		u, err := url.Parse(r.EvidenceURL)
		p.Check(err == nil && len(r.EvidenceURL) <= maxURLBytes && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" &&
			!strings.ContainsAny(r.EvidenceURL, " \t\r\n"), "evidence_url", "must be an http or https URL of at most "+strconv.Itoa(maxURLBytes)+" bytes")
	}
	var expires *time.Time
	if r.ExpiresAt != nil {
		t, err := timestamp.Parse(*r.ExpiresAt)
		switch {
		case err != nil:
			p.Add("expires_at", "must be an RFC 3339 timestamp")
		case !t.After(e.now()):
			p.Add("expires_at", "must be in the future")
		case t.After(e.now().Add(maxAttestation)):
			p.Add("expires_at", "must be within three years; attest the control again then")
		default:
			expires = &t
		}
	}
	if err := p.Err(); err != nil {
		return Attested{}, err
	}
	if checks := checksByControl[store.GapKey(fw.ID, c.ID)]; len(checks) > 0 {
		var names []string
		for _, ch := range checks {
			names = append(names, ch.ID)
		}
		return Attested{}, conflict(fw.Name + " " + c.ID + " is evidenced by automated checks (" + strings.Join(names, ", ") +
			"); only controls no check evidences are attested")
	}
	a, err := e.store.Attest(ctx, r.OrgID, store.Attestation{Framework: fw.ID, ControlID: c.ID, Status: r.Status, Note: r.Note,
		EvidenceURL: r.EvidenceURL, ExpiresAt: expires, AttestedBy: r.Actor})
	if err != nil {
		return Attested{}, err
	}
	return Attested{Framework: fw.ID, ControlID: c.ID, Title: c.Title, AttestationView: *newAttestationView(a, e.now())}, nil
}
