package compliance

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"

	"garrison/timestamp"
)

//go:embed report.html.tmpl
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"date":      dateTimeText,
	"day":       dateText,
	"evidence":  func(ControlResult) string { return "" }, // each report's own, in auditHTML
	"cssString": cssString,
	"result":    resultText,
	"upper":     strings.ToUpper,
	"name": func(id string) string {
		if fw, ok := LookupFramework(id); ok {
			return fw.Name
		}
		return id
	},
	"source": func(id string) string {
		if fw, ok := LookupFramework(id); ok {
			return fw.Source
		}
		return ""
	},
}).Parse(reportTemplateText))

// auditHTML renders the printable report: one self-contained page, no
// external assets, every value escaped by html/template.
func auditHTML(d AuditDocument) ([]byte, error) {
	t, err := reportTemplate.Clone()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Funcs(template.FuncMap{"evidence": d.evidence}).Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// resultText is a control's result in words.
func resultText(result string) string {
	switch result {
	case Manual:
		return "not assessed"
	case NotApplicable:
		return "not applicable"
	}
	return result
}

// dateTimeText writes a timestamp as a reader of the report would: "9
// March 2026, 14:05 UTC".
func dateTimeText(s *string) string {
	if s == nil {
		return ""
	}
	t, err := timestamp.Parse(*s)
	if err != nil {
		return *s
	}
	return t.Format("2 January 2006, 15:04 UTC")
}

// dateText writes a timestamp's day: "9 March 2026".
func dateText(s *string) string {
	if s == nil {
		return ""
	}
	t, err := timestamp.Parse(*s)
	if err != nil {
		return *s
	}
	return t.Format("2 January 2006")
}

// cssString quotes text as a CSS string (for the printed page footer): every
// character but ASCII letters and digits is a six-digit hex escape, so no
// name can end the string, the rule or the style element. Spaces are escaped
// too: a space after an escape would be read as its terminator.
func cssString(text string) template.CSS {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range text {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\%06x", r)
		}
	}
	b.WriteByte('"')
	return template.CSS(b.String())
}
