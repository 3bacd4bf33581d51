package compliance

import (
	"testing"

	"garrison/store"
)

// TestAppliedMessage: an applied remediation says what Garrison changed
// and, when it only recorded a policy as adopted, that the policy itself
// is still a person's work, instead of calling the control done.
func TestAppliedMessage(t *testing.T) {
	policy := func(id string) store.Change {
		return store.Change{Object: "policy_template", ID: id, Field: "adopted", Before: false, After: true}
	}
	expiry := store.Change{Object: "api_key", ID: "key_1", Field: "expires_at", After: "2026-06-08T12:00:00Z"}
	revoke := store.Change{Object: "api_key", ID: "key_2", Field: "status", Before: "active", After: "revoked"}
	const person = " Adopting a policy here is a record, not the policy itself: the control is evidenced when the Incident Response Policy " +
		"has been adapted to the organization, approved by management and shared with staff, which a person still has to do."
	tests := []struct {
		name    string
		changes []store.Change
		result  string
		want    string
	}{
		{"a policy adopted, nothing else", []store.Change{policy("incident-response")}, Pass,
			"Garrison recorded the Incident Response Policy as adopted; nothing else was changed." + person +
				" Garrison's checks count the control as passing from now on, and the next audit closes the gap."},
		{"two policies and a key", []store.Change{expiry, policy("access-control"), policy("password")}, Pass,
			"Garrison set an expiry 90 days away on 1 API key and recorded the Access Control Policy and the Password and Authentication Policy as adopted." +
				" Adopting a policy here is a record, not the policy itself: the control is evidenced when the Access Control Policy and the " +
				"Password and Authentication Policy have been adapted to the organization, approved by management and shared with staff, " +
				"which a person still has to do. Garrison's checks count the control as passing from now on, and the next audit closes the gap."},
		{"keys only", []store.Change{expiry, expiry, revoke}, Pass,
			"Garrison set an expiry 90 days away on 2 API keys and revoked 1 API key unused for 90 days. " +
				"The control passes its checks now; the next audit closes the gap."},
		{"a policy adopted, another check still failing", []store.Change{policy("incident-response")}, Fail,
			"Garrison recorded the Incident Response Policy as adopted; nothing else was changed." + person +
				" The control still fails: follow the remaining steps, then run a new audit."},
		{"nothing left to change", nil, Pass, "Garrison found nothing left to change. The control passes its checks now; the next audit closes the gap."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := appliedMessage(tc.changes, tc.result)
			if got != tc.want {
				t.Errorf("message\n got %q\nwant %q", got, tc.want)
			}
			if m := textForPeople.FindAllString(got, -1); m != nil {
				t.Errorf("the message shows %q", m)
			}
		})
	}
}
