package attack

import "testing"

func TestCWEDataLoads(t *testing.T) {
	idx := loadCWEs()
	if len(idx.problems) != 0 {
		t.Fatalf("malformed CAPEC rows: %v", idx.problems)
	}
	if len(idx.byCWE) < 50 {
		t.Fatalf("only %d weaknesses map to techniques", len(idx.byCWE))
	}
}

func TestForCWE(t *testing.T) {
	for _, tc := range []struct {
		cwe       string
		technique string
		capec     string
	}{
		{"CWE-645", "T1531", "CAPEC-2"}, // overly restrictive lockout → account access removal
		{"cwe-15", "T1562.003", "CAPEC-13"},
		{"CWE-0", "", ""},
	} {
		ms := ForCWE(tc.cwe)
		for i := 1; i < len(ms); i++ {
			if ms[i-1].Technique.ID >= ms[i].Technique.ID {
				t.Fatalf("%s: not one per technique in id order: %v", tc.cwe, ms)
			}
		}
		found := tc.technique == ""
		for _, m := range ms {
			found = found || m.Technique.ID == tc.technique && m.CAPEC == tc.capec
		}
		if !found {
			t.Fatalf("%s: no %s through %s in %v", tc.cwe, tc.technique, tc.capec, ms)
		}
		if tc.cwe == "CWE-0" && ms != nil {
			t.Fatalf("an unknown weakness maps to %v", ms)
		}
		for _, m := range ms {
			if m.CWE == "" || m.CAPEC == "" || m.CAPECName == "" || m.Technique.Name == "" || len(m.Technique.Tactics) == 0 {
				t.Fatalf("%s: incomplete mapping %+v", tc.cwe, m)
			}
		}
	}
}
