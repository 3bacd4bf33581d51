package compliance

import (
	"html"
	"strconv"
	"strings"
)

// markdownHTML renders the Markdown subset the policy templates are written
// in: ATX headings, paragraphs (two trailing spaces break a line), bullet
// and numbered lists (a numbered list keeps its first number), GFM tables
// and **bold**. Every character of the text is HTML-escaped, so the output
// carries no markup the text did not ask for.
func markdownHTML(src string) string {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			i++
		case headingLevel(trimmed) > 0:
			level := headingLevel(trimmed)
			tag := "h" + strconv.Itoa(level)
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(trimmed[level+1:])) + "</" + tag + ">\n")
			i++
		case isTableRow(trimmed) && i+1 < len(lines) && isTableRule(strings.TrimSpace(lines[i+1])):
			i = table(&b, lines, i)
		case bulletItem(trimmed) != "":
			b.WriteString("<ul>\n")
			for i < len(lines) && bulletItem(strings.TrimSpace(lines[i])) != "" {
				b.WriteString("<li>" + inline(bulletItem(strings.TrimSpace(lines[i]))) + "</li>\n")
				i++
			}
			b.WriteString("</ul>\n")
		case numberedItem(trimmed) > 0:
			b.WriteString(`<ol start="` + strconv.Itoa(numberedItem(trimmed)) + `">` + "\n")
			for i < len(lines) && numberedItem(strings.TrimSpace(lines[i])) > 0 {
				l := strings.TrimSpace(lines[i])
				b.WriteString("<li>" + inline(strings.TrimSpace(l[strings.Index(l, ".")+1:])) + "</li>\n")
				i++
			}
			b.WriteString("</ol>\n")
		default:
			b.WriteString("<p>")
			first := true
			for i < len(lines) && paragraphLine(lines[i]) {
				if !first {
					b.WriteString("\n")
				}
				first = false
				text := lines[i]
				hardBreak := strings.HasSuffix(text, "  ")
				b.WriteString(inline(strings.TrimSpace(text)))
				if hardBreak {
					b.WriteString("<br>")
				}
				i++
			}
			b.WriteString("</p>\n")
		}
	}
	return b.String()
}

// paragraphLine says whether a line continues a paragraph.
func paragraphLine(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && headingLevel(t) == 0 && bulletItem(t) == "" && numberedItem(t) == 0 && !isTableRow(t)
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || len(t) <= n || t[n] != ' ' {
		return 0
	}
	return n
}

func bulletItem(t string) string {
	if len(t) > 2 && (t[0] == '-' || t[0] == '*') && t[1] == ' ' && !strings.HasPrefix(t, "**") {
		return strings.TrimSpace(t[2:])
	}
	return ""
}

// numberedItem returns the number of a "12. text" line, or 0.
func numberedItem(t string) int {
	dot := strings.Index(t, ". ")
	if dot < 1 || dot > 4 {
		return 0
	}
	n, err := strconv.Atoi(t[:dot])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

func isTableRow(t string) bool {
	return strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") && len(t) > 1
}

func isTableRule(t string) bool {
	if !isTableRow(t) {
		return false
	}
	return strings.Trim(t, "|-: ") == ""
}

func cells(t string) []string {
	parts := strings.Split(strings.Trim(t, "|"), "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// table renders the table starting at lines[i] and returns the index after it.
func table(b *strings.Builder, lines []string, i int) int {
	b.WriteString("<table>\n<thead><tr>")
	for _, c := range cells(strings.TrimSpace(lines[i])) {
		b.WriteString("<th>" + inline(c) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	i += 2
	for i < len(lines) && isTableRow(strings.TrimSpace(lines[i])) {
		b.WriteString("<tr>")
		for _, c := range cells(strings.TrimSpace(lines[i])) {
			b.WriteString("<td>" + inline(c) + "</td>")
		}
		b.WriteString("</tr>\n")
		i++
	}
	b.WriteString("</tbody>\n</table>\n")
	return i
}

// inline escapes text and turns **x** into <strong>x</strong>.
func inline(t string) string {
	var b strings.Builder
	for {
		start := strings.Index(t, "**")
		if start < 0 {
			break
		}
		end := strings.Index(t[start+2:], "**")
		if end < 0 {
			break
		}
		b.WriteString(html.EscapeString(t[:start]))
		b.WriteString("<strong>" + html.EscapeString(t[start+2:start+2+end]) + "</strong>")
		t = t[start+2+end+2:]
	}
	b.WriteString(html.EscapeString(t))
	return b.String()
}

// markdownText makes a value (an organization's name) literal text in a
// Markdown document: HTML's special characters become entities and
// Markdown's are escaped with a backslash, so a name such as
// "<img src=x onerror=…>" or "[click](http://…)" reads as itself in any
// renderer and starts no list or heading at the start of a line.
func markdownText(s string) string {
	var b strings.Builder
	digits := 0
	for i, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case strings.ContainsRune("\\`*_{}[]()#+-!|~", r),
			(r == '.' || r == ')') && digits == i && i > 0: // "1." or "1)" would start a numbered list
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		if r >= '0' && r <= '9' && digits == i {
			digits++
		}
	}
	return b.String()
}
