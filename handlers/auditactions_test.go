package handlers

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"garrison/audit"
)

// TestAuditActionsDocumented: the action filter of GET /audit-log accepts
// exactly the actions docs/openapi.json lists.
func TestAuditActionsDocumented(t *testing.T) {
	raw, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Parameters map[string]struct {
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	documented := slices.Sorted(slices.Values(doc.Components.Parameters["auditAction"].Schema.Enum))
	if accepted := slices.Sorted(slices.Values(audit.Actions)); !slices.Equal(documented, accepted) {
		t.Fatalf("docs/openapi.json lists %v, the server accepts %v", documented, accepted)
	}
}
