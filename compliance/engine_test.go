package compliance

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/blocklist"
	"garrison/event"
	"garrison/fault"
	"garrison/store"
	"garrison/valid"
)

// sum is a summary with its derived counts: applicable = passed + failed +
// manual, assessed = passed + failed.
func sum(total, passed, failed, manual, na, pct int) Summary {
	return Summary{ControlsTotal: total, Passed: passed, Failed: failed, Manual: manual, NotApplicable: na,
		Applicable: passed + failed + manual, Assessed: passed + failed, Passing: passed, Failing: failed, NotAssessed: manual,
		CompletionPercentage: pct}
}

// TestSummaryAdd: completion is passing ÷ every applicable control,
// assessed or not; only not-applicable controls are left out.
func TestSummaryAdd(t *testing.T) {
	tests := []struct {
		name    string
		results []string
		want    Summary
	}{
		{"nothing", nil, Summary{}},
		{"manual only: nothing passes", []string{Manual, Manual}, sum(2, 0, 0, 2, 0, 0)},
		{"not applicable only: nothing to complete", []string{NotApplicable}, sum(1, 0, 0, 0, 1, 0)},
		{"all assessed pass, one not assessed", []string{Pass, Pass, Manual}, sum(3, 2, 0, 1, 0, 66)},
		{"all fail", []string{Fail, NotApplicable}, sum(2, 0, 1, 0, 1, 0)},
		{"two of three, rounded down", []string{Pass, Pass, Fail}, sum(3, 2, 1, 0, 0, 66)},
		{"one of four applicable", []string{Pass, Fail, Fail, Manual}, sum(4, 1, 2, 1, 0, 25)},
		{"not applicable left out", []string{Pass, NotApplicable, NotApplicable, Manual}, sum(4, 1, 0, 1, 2, 50)},
		{"199 of 200 is 99", append(slices.Repeat([]string{Pass}, 199), Fail), sum(200, 199, 1, 0, 0, 99)},
		{"every control assessed and passing", []string{Pass, Pass, NotApplicable}, sum(3, 2, 0, 0, 1, 100)},
		{"an unknown result only counts in the total", []string{"weird", Pass}, sum(2, 1, 0, 0, 0, 100)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Summary
			for _, r := range tc.results {
				s.add(r)
			}
			if s != tc.want {
				t.Errorf("got %+v, want %+v", s, tc.want)
			}
		})
	}
}

// TestSummaryDerivedOnRead: a summary stored before the derived counts
// existed (and with completion over assessed controls) reads with them,
// and with completion over every applicable control.
func TestSummaryDerivedOnRead(t *testing.T) {
	stored := `{"cis": {"controls_total": 153, "passed": 54, "failed": 0, "manual": 97, "not_applicable": 2, "completion_percentage": 100}}`
	r, err := parseAudit(store.Audit{ID: "rpt_1", Summary: []byte(stored)})
	if err != nil {
		t.Fatal(err)
	}
	if want := sum(153, 54, 0, 97, 2, 35); r.Summary["cis"] != want {
		t.Errorf("got %+v, want %+v", r.Summary["cis"], want)
	}
	if got, want := NotAudited(61), (Summary{ControlsTotal: 61, Applicable: 61, NotAssessed: 61}); got != want {
		t.Errorf("before any audit: %+v, want %+v", got, want)
	}
}

func TestAttestationViewExpiry(t *testing.T) {
	tests := []struct {
		name    string
		expires *time.Time
		want    bool
	}{
		{"never expires", nil, false},
		{"expires a second from now", at(time.Second), false},
		{"expires exactly now", at(0), true},
		{"expired a second ago", at(-time.Second), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newAttestationView(store.Attestation{Status: Pass, Note: "n", ExpiresAt: tc.expires, AttestedBy: "usr_1",
				AttestedAt: testNow.Add(-day)}, testNow)
			if v.Expired != tc.want {
				t.Errorf("expired %v, want %v", v.Expired, tc.want)
			}
			if v.EvidenceURL != nil || v.AttestedAt != "2026-03-09T12:00:00Z" || v.AttestedBy != "usr_1" || v.Status != Pass {
				t.Errorf("view %+v", v)
			}
		})
	}
	v := newAttestationView(store.Attestation{Status: Fail, EvidenceURL: "https://x.test/e"}, testNow)
	if v.EvidenceURL == nil || *v.EvidenceURL != "https://x.test/e" {
		t.Errorf("evidence url %v", v.EvidenceURL)
	}
}

func findings(r ControlResult) map[string]string {
	out := map[string]string{}
	for _, f := range r.Findings {
		out[f.CheckID] = f.Result
	}
	return out
}

func failedIDs(g *GapDetail) []string {
	if g == nil {
		return nil
	}
	var ids []string
	for _, f := range g.Failed {
		ids = append(ids, f.CheckID)
	}
	return ids
}

// TestControlEvaluation: a control with checks fails when one fails, is not
// applicable when all are, else passes; one without checks rests on an
// attestation that has not expired, else is manual.
func TestControlEvaluation(t *testing.T) {
	attest := func(key, status string, expires *time.Time) func(f *Facts) {
		return func(f *Facts) {
			f.Attestations = map[string]store.Attestation{key: {Status: status, ExpiresAt: expires, AttestedBy: "usr_1", AttestedAt: testNow}}
		}
	}
	tests := []struct {
		name         string
		framework    string
		control      string
		change       func(f *Facts)
		result       string
		basis        string
		findings     map[string]string
		gapFailed    []string // nil: no gap
		gapSeverity  event.Severity
		autoRemedial bool
	}{
		{"one check passing", "cis", "8.10", func(f *Facts) {}, Pass, "checks", map[string]string{"log_retention": Pass}, nil, 0, false},
		{"one check failing", "cis", "8.10", func(f *Facts) { f.Settings.EventRetention = day }, Fail, "checks",
			map[string]string{"log_retention": Fail}, []string{"log_retention"}, event.Medium, false},
		{"its only check not applicable", "cis", "7.2", func(f *Facts) { f.Settings.CVEWatchlist = false }, NotApplicable, "checks",
			map[string]string{"vulnerability_sla": NotApplicable}, nil, 0, false},
		{"one of two failing", "hipaa", "164.312(b)", func(f *Facts) { f.Sources = nil }, Fail, "checks",
			map[string]string{"event_sources": Fail, "log_retention": Pass}, []string{"event_sources"}, event.High, false},
		{"two failing: the worst severity", "hipaa", "164.312(b)", func(f *Facts) { f.Sources, f.Settings.EventRetention = nil, day }, Fail,
			"checks", map[string]string{"event_sources": Fail, "log_retention": Fail}, []string{"event_sources", "log_retention"}, event.High, false},
		{"a failing check Garrison cannot fix", "cis", "17.4", func(f *Facts) { f.OverdueAlerts.Count = 1; delete(f.Adopted, "incident-response") },
			Fail, "checks", map[string]string{"alert_sla": Fail, "policy_incident_response": Fail},
			[]string{"alert_sla", "policy_incident_response"}, event.High, false},
		{"every failing check fixable", "cis", "5.3", func(f *Facts) {
			f.Keys = []store.APIKey{key("k1", "read", -200*day, nil, nil)}
			delete(f.Adopted, "access-control")
		}, Fail, "checks", map[string]string{"dormant_keys": Fail, "policy_access_control": Fail},
			[]string{"dormant_keys", "policy_access_control"}, event.Medium, true},
		{"its only check not applicable: nothing watched", "soc2", "CC7.1", func(f *Facts) {
			f.Exposure = nil
		}, NotApplicable, "checks", map[string]string{"vulnerability_sla": NotApplicable}, nil, 0, false},
		{"an attestation does not override checks", "cis", "8.10", func(f *Facts) {
			f.Settings.EventRetention = day
			f.Attestations = map[string]store.Attestation{"cis/8.10": {Status: Pass}}
		}, Fail, "checks", map[string]string{"log_retention": Fail}, []string{"log_retention"}, event.Medium, false},
		{"no checks, no attestation", "soc2", "CC1.2", func(f *Facts) {}, Manual, "none", map[string]string{}, nil, 0, false},
		{"attested pass", "soc2", "CC1.2", attest("soc2/CC1.2", Pass, nil), Pass, "attestation", map[string]string{}, nil, 0, false},
		{"attested not applicable", "soc2", "CC1.2", attest("soc2/CC1.2", NotApplicable, at(day)), NotApplicable, "attestation",
			map[string]string{}, nil, 0, false},
		{"attestation expired now", "soc2", "CC1.2", attest("soc2/CC1.2", Pass, at(0)), Manual, "none", map[string]string{}, nil, 0, false},
		{"attested fail", "soc2", "CC1.2", attest("soc2/CC1.2", Fail, nil), Fail, "attestation", map[string]string{}, []string{}, event.Medium, false},
		{"another control's attestation", "soc2", "CC1.2", attest("soc2/CC1.3", Pass, nil), Manual, "none", map[string]string{}, nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := passingFacts()
			tc.change(&f)
			fw, _ := LookupFramework(tc.framework)
			c, ok := fw.Control(tc.control)
			if !ok {
				t.Fatalf("no control %s %s", tc.framework, tc.control)
			}
			ev := &evaluation{facts: &f, findings: map[string]Finding{}}
			r, gap := ev.control(fw, c)
			if r.Result != tc.result || r.Basis != tc.basis || r.ControlID != tc.control || r.Title != c.Title {
				t.Errorf("control %s %q: %s on %s, want %s on %s", r.ControlID, r.Title, r.Result, r.Basis, tc.result, tc.basis)
			}
			if got := findings(r); !reflect.DeepEqual(got, tc.findings) {
				t.Errorf("findings %v, want %v", got, tc.findings)
			}
			if (gap == nil) != (tc.gapFailed == nil) {
				t.Fatalf("gap %+v, want failing %v", gap, tc.gapFailed)
			}
			if gap == nil {
				return
			}
			if got := failedIDs(gap); !slices.Equal(got, tc.gapFailed) {
				t.Errorf("gap's failing checks %v, want %v", got, tc.gapFailed)
			}
			if gap.Severity != tc.gapSeverity || gap.AutoRemediable != tc.autoRemedial || gap.Framework != tc.framework ||
				gap.ControlID != tc.control || gap.ControlTitle != c.Title {
				t.Errorf("gap %s %s %q severity %v auto %v, want severity %v auto %v",
					gap.Framework, gap.ControlID, gap.ControlTitle, gap.Severity, gap.AutoRemediable, tc.gapSeverity, tc.autoRemedial)
			}
		})
	}
}

func TestGapSteps(t *testing.T) {
	t.Run("the failing checks' steps, each once, in order", func(t *testing.T) {
		f := passingFacts()
		f.Keys = []store.APIKey{key("k1", "admin", -200*day, nil, nil)}
		fw, _ := LookupFramework("nist")
		c, _ := fw.Control("PR.AA-01") // password_policy key_expiry dormant_keys policy_access_control policy_password
		_, gap := (&evaluation{facts: &f, findings: map[string]Finding{}}).control(fw, c)
		want := append(slices.Clone(checkByID("key_expiry").Steps), checkByID("dormant_keys").Steps...)
		if gap == nil || !slices.Equal(gap.RemediationSteps, want) {
			t.Fatalf("steps %v, want %v", gap, want)
		}
		if !slices.Equal(failedIDs(gap), []string{"key_expiry", "dormant_keys"}) || !gap.AutoRemediable {
			t.Errorf("gap %+v", gap)
		}
	})
	t.Run("an attested failure asks for the control and a new attestation", func(t *testing.T) {
		f := passingFacts()
		f.Attestations = map[string]store.Attestation{"soc2/CC1.2": {Status: Fail}}
		fw, _ := LookupFramework("soc2")
		c, _ := fw.Control("CC1.2")
		_, gap := (&evaluation{facts: &f, findings: map[string]Finding{}}).control(fw, c)
		want := []string{
			"Put the control in place: " + c.Title + ".",
			"Keep the evidence (a document, a ticket, a screenshot) where an auditor can see it.",
			"Attest the control again on the Compliance page, as passing, with a link to the evidence.",
		}
		if gap == nil || !slices.Equal(gap.RemediationSteps, want) || gap.AutoRemediable || len(gap.Failed) != 0 {
			t.Fatalf("gap %+v, want steps %v", gap, want)
		}
	})
}

// TestAssess: every control of each framework asked for is evaluated once
// per check, and the gaps come most severe first.
func TestAssess(t *testing.T) {
	mapped := func(fw string) int {
		n := 0
		for k := range checksByControl {
			if strings.HasPrefix(k, fw+"/") {
				n++
			}
		}
		return n
	}
	t.Run("all passing", func(t *testing.T) {
		f := passingFacts()
		a := assess(&f, []string{"soc2", "nope", "cis"})
		if len(a.Frameworks) != 2 || a.Frameworks[0].Framework != "soc2" || a.Frameworks[1].Framework != "cis" || !a.At.Equal(testNow) {
			t.Fatalf("frameworks %+v", a.Frameworks)
		}
		for _, fr := range a.Frameworks {
			fw, _ := LookupFramework(fr.Framework)
			// vulnerability_sla is not applicable without a CVE affecting an asset.
			na := map[string]int{"soc2": 1, "cis": 2}[fr.Framework]
			passed, manual := mapped(fr.Framework)-na, len(fw.Controls)-mapped(fr.Framework)
			want := sum(len(fw.Controls), passed, 0, manual, na, 100*passed/(passed+manual))
			if fr.Summary != want || len(fr.Controls) != len(fw.Controls) || fr.Name != fw.Name || fr.Version != fw.Version {
				t.Errorf("%s: summary %+v, want %+v", fr.Framework, fr.Summary, want)
			}
		}
		if len(a.Gaps) != 0 {
			t.Errorf("gaps %+v", a.Gaps)
		}
		// Every check passing is not 100%: 97 CIS safeguards and 35 SOC 2
		// criteria no check evidences and nobody attested.
		if got, want := a.Frameworks[1].Summary, sum(153, 54, 0, 97, 2, 35); got != want {
			t.Errorf("cis with every check passing: %+v, want %+v", got, want)
		}
		if got, want := a.Frameworks[0].Summary, sum(61, 25, 0, 35, 1, 41); got != want {
			t.Errorf("soc2 with every check passing: %+v, want %+v", got, want)
		}
	})
	t.Run("gaps most severe first", func(t *testing.T) {
		f := passingFacts()
		f.Settings.EventRetention = day // log_retention, medium: cis 8.10
		f.Sources = nil                 // event_sources, high: cis 8.2, 8.9, 13.1
		f.ResolvedAlerts, f.OldestOpen = 0, at(-30*day)
		a := assess(&f, []string{"cis"})
		var got []string
		for _, g := range a.Gaps {
			got = append(got, g.ControlID+":"+g.Severity.String())
		}
		want := []string{"8.2:high", "8.9:high", "13.1:high", "8.10:medium", "8.11:low"}
		if !slices.Equal(got, want) {
			t.Errorf("gaps %v, want %v", got, want)
		}
		s := a.Frameworks[0].Summary
		if s.Failed != 5 || s.Passed != mapped("cis")-2-5 || s.CompletionPercentage != 100*s.Passed/(153-2) {
			t.Errorf("summary %+v", s)
		}
	})
}

func TestAttestValidation(t *testing.T) {
	e := New(Config{Now: func() time.Time { return testNow }}) // no store: every case is refused before it
	str := func(s string) *string { return &s }
	base := AttestRequest{OrgID: "org_1", Framework: "soc2", ControlID: "CC1.2", Status: Pass, Actor: "usr_1"}
	tests := []struct {
		name   string
		change func(r *AttestRequest)
		want   map[string]string
	}{
		{"unknown status", func(r *AttestRequest) { r.Status = "manual" }, map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"note over the limit", func(r *AttestRequest) { r.Status, r.Note = Fail, strings.Repeat("n", 2001) },
			map[string]string{"note": "must be at most 2000 bytes (it has 2001)"}},
		{"evidence not a URL", func(r *AttestRequest) { r.EvidenceURL = "evidence.pdf" },
			map[string]string{"evidence_url": "must be an http or https URL of at most 2048 bytes"}},
		{"evidence over ftp", func(r *AttestRequest) { r.EvidenceURL = "ftp://files.test/e.pdf" },
			map[string]string{"evidence_url": "must be an http or https URL of at most 2048 bytes"}},
		{"evidence with a space", func(r *AttestRequest) { r.EvidenceURL = "https://files.test/a b.pdf" },
			map[string]string{"evidence_url": "must be an http or https URL of at most 2048 bytes"}},
		{"evidence URL a byte over the limit", func(r *AttestRequest) { r.EvidenceURL = "https://files.test/" + strings.Repeat("a", 2048-18) },
			map[string]string{"evidence_url": "must be an http or https URL of at most 2048 bytes"}},
		// A valid field beside a bad status: only the status is refused
		// (and nothing reaches the store).
		{"evidence URL at the limit", func(r *AttestRequest) {
			r.Status, r.EvidenceURL = "", "https://files.test/"+strings.Repeat("a", 2048-19)
		},
			map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"evidence over http", func(r *AttestRequest) { r.Status, r.EvidenceURL = "", "http://files.test/e.pdf" },
			map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"expiry exactly three years away", func(r *AttestRequest) { r.Status, r.ExpiresAt = "", str("2029-03-09T12:00:00Z") },
			map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"expiry a second from now", func(r *AttestRequest) { r.Status, r.ExpiresAt = "", str("2026-03-10T12:00:01Z") },
			map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"note at the limit", func(r *AttestRequest) { r.Status, r.Note = "", strings.Repeat("n", 2000) },
			map[string]string{"status": "must be pass, fail or not_applicable"}},
		{"expiry not a time", func(r *AttestRequest) { r.ExpiresAt = str("next year") }, map[string]string{"expires_at": "must be an RFC 3339 timestamp"}},
		{"expiry exactly now", func(r *AttestRequest) { r.ExpiresAt = str("2026-03-10T12:00:00Z") }, map[string]string{"expires_at": "must be in the future"}},
		{"expiry a second past three years", func(r *AttestRequest) { r.ExpiresAt = str("2029-03-09T12:00:01Z") },
			map[string]string{"expires_at": "must be within three years; attest the control again then"}},
		{"all at once", func(r *AttestRequest) { r.Status, r.EvidenceURL, r.ExpiresAt = "", "x", str("2020-01-01T00:00:00Z") },
			map[string]string{"status": "must be pass, fail or not_applicable", "evidence_url": "must be an http or https URL of at most 2048 bytes",
				"expires_at": "must be in the future"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.change(&r)
			_, err := e.Attest(context.Background(), r)
			var ve *valid.Error
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a validation error", err)
			}
			got := map[string]string{}
			for _, p := range ve.Problems {
				got[p.Field] = p.Message
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAttestRefusals(t *testing.T) {
	e := New(Config{Now: func() time.Time { return testNow }})
	tests := []struct {
		name, framework, control string
		notFound                 bool
		conflict                 string
	}{
		{"unknown framework", "iso27001", "A.5.1", true, ""},
		{"unknown control", "soc2", "CC99.9", true, ""},
		{"a control checks evidence", "cis", "8.10", false, "CIS Critical Security Controls 8.10 is evidenced by automated checks (log_retention); " +
			"only controls no check evidences are attested"},
		{"a control two checks evidence", "hipaa", "164.312(b)", false, "HIPAA Security Rule 164.312(b) is evidenced by automated checks " +
			"(event_sources, log_retention); only controls no check evidences are attested"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Attest(context.Background(), AttestRequest{Framework: tc.framework, ControlID: tc.control, Status: Pass})
			if tc.notFound {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("got %v, want not found", err)
				}
				return
			}
			f := fault.From(err)
			if f == nil || f.Code != fault.Conflict || f.Message != tc.conflict {
				t.Fatalf("got %v, want conflict %q", err, tc.conflict)
			}
		})
	}
}

func TestRemediateValidation(t *testing.T) {
	e := New(Config{Now: func() time.Time { return testNow }})
	yes := true
	tests := []struct {
		name string
		r    RemediateRequest
		want map[string]string
	}{
		{"no gap", RemediateRequest{AutoApply: &yes}, map[string]string{"gap_id": "is required: the gap_id of a gap an audit found"}},
		{"no auto_apply", RemediateRequest{GapID: "gap_1"},
			map[string]string{"auto_apply": "is required: true to apply what Garrison can change, false to plan"}},
		{"neither", RemediateRequest{}, map[string]string{"gap_id": "is required: the gap_id of a gap an audit found",
			"auto_apply": "is required: true to apply what Garrison can change, false to plan"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Remediate(context.Background(), tc.r)
			var ve *valid.Error
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a validation error", err)
			}
			got := map[string]string{}
			for _, p := range ve.Problems {
				got[p.Field] = p.Message
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
		})
	}
}

func TestServerSettings(t *testing.T) {
	s := ServerSettings(12*time.Hour, 600000, blocklist.New(), 30*day)
	want := Settings{PasswordMinLength: 12, PasswordHash: "PBKDF2-HMAC-SHA256 with 600000 iterations and a per-password salt",
		SessionTTL: 12 * time.Hour, HTTPSOnly: true, TLSMinVersion: "1.2", EventRetention: 30 * day, CVEWatchlist: true}
	if s != want {
		t.Errorf("got %+v, want %+v", s, want)
	}
}
