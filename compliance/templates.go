package compliance

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

//go:embed templates/*.md templates/templates.json
var templateFiles embed.FS

// Template is a policy template: its text is Markdown with the placeholders
// {{organization}}, {{effective_date}} and {{policy_owner}}.
type Template struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Controls    map[string][]string `json:"controls"`
	Markdown    string              `json:"-"`
}

var templates = mustLoadTemplates()

func mustLoadTemplates() []*Template {
	index, err := templateFiles.ReadFile("templates/templates.json")
	if err != nil {
		panic(err)
	}
	var out []*Template
	if err := json.Unmarshal(index, &out); err != nil {
		panic(fmt.Errorf("templates.json: %w", err))
	}
	for _, t := range out {
		text, err := templateFiles.ReadFile("templates/" + t.ID + ".md")
		if err != nil {
			panic(err) // part of the binary: a missing text is a build defect
		}
		t.Markdown = string(text)
	}
	return out
}

// Templates lists the policy templates.
func Templates() []*Template { return slices.Clone(templates) }

// LookupTemplate finds a template by id.
func LookupTemplate(id string) (*Template, bool) {
	for _, t := range templates {
		if t.ID == id {
			return t, true
		}
	}
	return nil, false
}

// Filled is the template's Markdown with the organization's details in
// place, escaped as Markdown text. Blanks stay visible lines to fill in by
// hand.
func (t *Template) Filled(organization, effectiveDate string) string {
	effectiveDate = markdownText(effectiveDate)
	if effectiveDate == "" {
		effectiveDate = "____________"
	}
	return strings.NewReplacer("{{organization}}", markdownText(organization), "{{effective_date}}", effectiveDate,
		"{{policy_owner}}", "____________").Replace(t.Markdown)
}
