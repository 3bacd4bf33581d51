package compliance

import (
	"context"
	"encoding/json"
	"html"
	"strings"

	"garrison/store"
	"garrison/valid"
)

// TemplateStatus is a template with the organization's adoption of it.
type TemplateStatus struct {
	*Template
	Adoption *store.PolicyAdoption
}

// Templates lists the policy templates with the organization's adoptions.
func (e *Engine) Templates(ctx context.Context, orgID string) ([]TemplateStatus, error) {
	adopted, err := e.store.PolicyAdoptions(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]TemplateStatus, len(templates))
	for i, t := range templates {
		out[i] = TemplateStatus{Template: t}
		if a, ok := adopted[t.ID]; ok {
			out[i].Adoption = &a
		}
	}
	return out, nil
}

// Adopt records that the organization adopted a template; created says
// whether this call recorded it (adopting again keeps the first record).
func (e *Engine) Adopt(ctx context.Context, orgID, id, actor string) (TemplateStatus, bool, error) {
	t, ok := LookupTemplate(id)
	if !ok {
		return TemplateStatus{}, false, store.ErrNotFound
	}
	a, created, err := e.store.AdoptPolicy(ctx, orgID, t.ID, actor)
	if err != nil {
		return TemplateStatus{}, false, err
	}
	return TemplateStatus{Template: t, Adoption: &a}, created, nil
}

// templateJSON is the JSON download of a template.
type templateJSON struct {
	ID            string              `json:"id"`
	Name          string              `json:"name"`
	Description   string              `json:"description"`
	Controls      map[string][]string `json:"controls"`
	Organization  string              `json:"organization"`
	Adopted       bool                `json:"adopted"`
	EffectiveDate *string             `json:"effective_date"`
	Format        string              `json:"format"`
	Content       string              `json:"content"`
}

// TemplateDocument renders a template for the organization: JSON (with the
// Markdown text inside), Markdown, or a printable HTML page. An adopted
// template carries its adoption date as the effective date.
func (e *Engine) TemplateDocument(ctx context.Context, orgID, id, format string) (Document, error) {
	t, ok := LookupTemplate(id)
	if !ok {
		return Document{}, store.ErrNotFound
	}
	if format == "" {
		format = FormatJSON
	}
	if format != FormatJSON && format != FormatMD && format != FormatHTML {
		return Document{}, valid.Field("format", "must be json, md or html")
	}
	org, err := e.store.Org(ctx, orgID)
	if err != nil {
		return Document{}, err
	}
	adopted, err := e.store.PolicyAdoptions(ctx, orgID)
	if err != nil {
		return Document{}, err
	}
	var effective *string
	if a, ok := adopted[t.ID]; ok {
		d := a.AdoptedAt.Format("2 January 2006")
		effective = &d
	}
	date := ""
	if effective != nil {
		date = *effective
	}
	base := t.ID + "-policy"
	switch format {
	case FormatMD:
		return Document{Filename: base + ".md", ContentType: "text/markdown; charset=utf-8", Body: []byte(t.Filled(org.Name, date))}, nil
	case FormatHTML:
		return Document{Filename: base + ".html", ContentType: "text/html; charset=utf-8", Body: policyHTML(t, org.Name, date)}, nil
	}
	body, err := json.MarshalIndent(templateJSON{ID: t.ID, Name: t.Name, Description: t.Description, Controls: t.Controls,
		Organization: org.Name, Adopted: effective != nil, EffectiveDate: effective, Format: "markdown",
		Content: t.Filled(org.Name, date)}, "", "  ")
	return Document{Filename: base + ".json", ContentType: "application/json; charset=utf-8", Body: append(body, '\n')}, err
}

// policyHTML renders the template as a printable page. The Markdown is
// rendered with its placeholders in place and the values, escaped, are
// put in afterwards, so an organization's name cannot add markup.
func policyHTML(t *Template, organization, date string) []byte {
	if date == "" {
		date = "____________"
	}
	body := strings.NewReplacer("{{organization}}", html.EscapeString(organization), "{{effective_date}}", html.EscapeString(date),
		"{{policy_owner}}", "____________").Replace(markdownHTML(t.Markdown))
	return []byte(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(t.Name+" · "+organization) + `</title>
<style>
  @page { size: A4; margin: 18mm 16mm 20mm;
    @bottom-left { content: ` + string(cssString(t.Name+" · "+organization)) + `; font: 8pt Helvetica, Arial, sans-serif; color: #5a6275; }
    @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 8pt Helvetica, Arial, sans-serif; color: #5a6275; } }
  body { font: 11pt/1.55 Georgia, "Times New Roman", serif; color: #1d2330; max-width: 180mm; margin: 0 auto; padding: 10mm 0; }
  h1 { font: 600 21pt/1.2 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0 0 5mm; }
  h2, h3 { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; break-after: avoid; }
  h2 { font-size: 14pt; margin: 8mm 0 2mm; border-bottom: 1px solid #c8cdd6; padding-bottom: 1mm; }
  h3 { font-size: 11.5pt; margin: 5mm 0 1.5mm; }
  ol, ul { padding-left: 7mm; }
  li { margin: 0 0 1.5mm; }
  table { border-collapse: collapse; width: 100%; margin: 3mm 0; font-size: 10pt; }
  th, td { border: 1px solid #c8cdd6; padding: 1.5mm 2mm; text-align: left; vertical-align: top; }
  th { background: #f1f3f7; }
  tr { break-inside: avoid; }
</style>
</head>
<body>
` + body + `</body>
</html>
`)
}
