// Package outreach is the MSP's sales pipeline: prospects imported as JSON
// or CSV, the scoring model the msp-hunter agent applies to turn them into
// leads, and the rules of the lead pipeline. No HTTP here.
package outreach

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"garrison/store"
	"garrison/valid"
)

// Limits of an import.
const (
	MaxProspects   = 10000
	maxCompany     = 200
	maxRegion      = 100
	maxName        = 200
	maxPhone       = 40
	maxNotes       = 2000
	maxAttributes  = 50
	maxAttrKey     = 64
	maxAttrValue   = 500
	maxEmployees   = 10_000_000
	maxEmailLength = 254
)

// Verticals a prospect may belong to.
var Verticals = []string{"healthcare", "dental", "legal", "finance", "accounting", "insurance", "manufacturing",
	"construction", "education", "nonprofit", "government", "retail", "hospitality", "real_estate", "technology", "logistics"}

// columns are the known fields; any other CSV column or JSON key is kept
// as an attribute.
var columns = []string{"company", "domain", "vertical", "region", "employees", "contact_name", "contact_email", "contact_phone", "notes"}

// Row is one prospect as imported, before validation.
type Row struct {
	Company, Domain, Vertical, Region       string
	Employees                               string // as given; "" when absent
	ContactName, ContactEmail, ContactPhone string
	Notes                                   string
	Attributes                              map[string]string
}

// ParseCSV reads a CSV with a header row (a UTF-8 byte order mark and CRLF
// line ends are fine). A malformed quote or a row with the wrong number of
// columns refuses the file, naming the line.
func ParseCSV(body []byte) ([]Row, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(body) {
		return nil, valid.Field("body", "is not valid UTF-8")
	}
	r := csv.NewReader(bytes.NewReader(body))
	r.ReuseRecord = false
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, valid.Field("body", "is empty: send a header row and one row per prospect")
	}
	if err != nil {
		return nil, csvError(err)
	}
	for i := range header {
		header[i] = strings.ToLower(strings.TrimSpace(header[i]))
	}
	var p valid.Problems
	for _, want := range []string{"company", "domain"} {
		p.Check(slices.Contains(header, want), "body", "the header row must name a "+want+" column")
	}
	seen := map[string]bool{}
	for _, h := range header {
		p.Check(h != "" && !seen[h], "body", fmt.Sprintf("the header row names %q twice or has an empty column name", h))
		seen[h] = true
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		if len(rows) == MaxProspects {
			return nil, valid.Field("body", fmt.Sprintf("holds more than %d prospects; split it", MaxProspects))
		}
		fields := map[string]string{}
		for i, h := range header {
			fields[h] = rec[i]
		}
		rows = append(rows, rowFrom(fields))
	}
	return rows, nil
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return valid.Field("body", fmt.Sprintf("is not valid CSV: line %d: %v", pe.StartLine, pe.Err))
	}
	return valid.Field("body", "is not valid CSV: "+err.Error())
}

// ParseJSON reads a JSON array of prospect objects, one at a time (a body
// of more than MaxProspects is refused as soon as it is seen). Keys are
// compared in lower case; values must be strings (employees may also be a
// number); other keys become attributes.
func ParseJSON(body []byte) ([]Row, error) {
	if !utf8.Valid(body) {
		return nil, valid.Field("body", "is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	notArray := valid.Field("body", "must be a JSON array of prospect objects")
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, notArray
	}
	var p valid.Problems
	var rows []Row
	for dec.More() {
		if len(rows) == MaxProspects {
			return nil, valid.Field("body", fmt.Sprintf("holds more than %d prospects; split it", MaxProspects))
		}
		i := len(rows)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				return nil, valid.Field("body", fmt.Sprintf("is malformed JSON (at byte %d)", syn.Offset))
			}
			return nil, notArray
		}
		obj, ok := valid.Members(raw) // in the order written, a key given twice twice
		if !ok {
			return nil, notArray
		}
		fields := map[string]string{}
		for _, m := range obj {
			k, v := m.Key, m.Value
			lk := strings.ToLower(strings.TrimSpace(k))
			if _, dup := fields[lk]; dup {
				p.Add(rowField(i, lk), "is given twice (keys are compared in lower case)")
				continue
			}
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				var n json.Number
				if lk == "employees" && json.Unmarshal(v, &n) == nil {
					s = n.String()
				} else if string(v) != "null" {
					p.Add(rowField(i, lk), "must be a string")
					continue
				}
			}
			fields[lk] = s
		}
		rows = append(rows, rowFrom(fields))
	}
	if _, err := dec.Token(); err != nil {
		return nil, valid.Field("body", "is malformed JSON (unexpected end)")
	}
	if dec.More() {
		return nil, valid.Field("body", "must contain a single JSON array")
	}
	return rows, p.Err()
}

func rowFrom(fields map[string]string) Row {
	r := Row{Company: fields["company"], Domain: fields["domain"], Vertical: fields["vertical"], Region: fields["region"],
		Employees: fields["employees"], ContactName: fields["contact_name"], ContactEmail: fields["contact_email"],
		ContactPhone: fields["contact_phone"], Notes: fields["notes"]}
	for k, v := range fields {
		if !slices.Contains(columns, k) {
			if r.Attributes == nil {
				r.Attributes = map[string]string{}
			}
			r.Attributes[k] = v
		}
	}
	return r
}

// thousands is a count written with thousands separators.
var thousands = regexp.MustCompile(`^[0-9]{1,3}(,[0-9]{3})+$`)

// rowField names a field of a row: rows are counted from 1.
func rowField(i int, field string) string { return "rows[" + strconv.Itoa(i+1) + "]." + field }

// Validate checks and normalizes rows into prospects, all or nothing;
// problems are named rows[N].field. Rows of the same domain merge in order.
func Validate(rows []Row) ([]store.ProspectInput, error) {
	var p valid.Problems
	if len(rows) == 0 {
		return nil, valid.Field("body", "holds no prospects")
	}
	out := make([]store.ProspectInput, 0, len(rows))
	byDomain := map[string]int{}
	for i, r := range rows {
		in := store.ProspectInput{Company: strings.TrimSpace(r.Company), Vertical: strings.ToLower(strings.TrimSpace(r.Vertical)),
			Region: strings.TrimSpace(r.Region), ContactName: strings.TrimSpace(r.ContactName),
			ContactEmail: strings.TrimSpace(r.ContactEmail), ContactPhone: strings.TrimSpace(r.ContactPhone), Notes: strings.TrimSpace(r.Notes),
			Attributes: map[string]string{}}
		f := func(name string) string { return rowField(i, name) }
		p.CheckText(f("company"), in.Company, valid.TextRule{Max: maxCompany, Required: true, OneLine: true})
		domain, ok := NormalizeDomain(r.Domain)
		p.Check(ok, f("domain"), "is required: the company's domain name, e.g. acme-dental.com")
		in.Domain = domain
		p.Check(in.Vertical == "" || slices.Contains(Verticals, in.Vertical), f("vertical"), "must be one of "+strings.Join(Verticals, ", "))
		p.CheckText(f("region"), in.Region, valid.TextRule{Max: maxRegion, OneLine: true})
		if e := strings.TrimSpace(r.Employees); e != "" {
			n, err := strconv.Atoi(e)
			if err != nil && thousands.MatchString(e) { // "1,200"
				n, err = strconv.Atoi(strings.ReplaceAll(e, ",", ""))
			}
			p.Check(err == nil && n >= 0 && n <= maxEmployees, f("employees"), "must be a whole number from 0 to 10,000,000")
			in.Employees = &n
		}
		p.CheckText(f("contact_name"), in.ContactName, valid.TextRule{Max: maxName, OneLine: true})
		if in.ContactEmail != "" {
			a, err := mail.ParseAddress(in.ContactEmail)
			p.Check(err == nil && a.Name == "" && a.Address == in.ContactEmail && len(in.ContactEmail) <= maxEmailLength,
				f("contact_email"), "must be an e-mail address such as jane@acme-dental.com")
			in.ContactEmail = strings.ToLower(in.ContactEmail)
		}
		p.Check(len(in.ContactPhone) <= maxPhone && strings.Trim(in.ContactPhone, "0123456789+-().x ") == "", f("contact_phone"),
			"must be a phone number of at most 40 characters (digits, spaces, + - ( ) . x)")
		p.CheckText(f("notes"), in.Notes, valid.TextRule{Max: maxNotes})
		p.Check(len(r.Attributes) <= maxAttributes, f("attributes"), "at most 50 other columns are kept")
		for k, v := range r.Attributes {
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.TrimSpace(v)
			p.Check(k != "" && len(k) <= maxAttrKey && oneLine(k), f(k), "an extra column's name must be one line of at most 64 bytes")
			p.CheckText(f(k), v, valid.TextRule{Max: maxAttrValue})
			if v != "" {
				in.Attributes[k] = v
			}
		}
		if p.Full() {
			break
		}
		if j, dup := byDomain[in.Domain]; dup && domain != "" {
			mergeInto(&out[j], in)
			p.Check(len(out[j].Attributes) <= maxAttributes, f("attributes"), "this row and the earlier rows of its domain give more than 50 other columns")
			continue
		}
		byDomain[in.Domain] = len(out)
		out = append(out, in)
	}
	return out, p.Err()
}

func oneLine(s string) bool { return valid.Text(s) && !strings.ContainsAny(s, "\r\n") }

// NormalizeDomain reduces a website or domain to its host name: lower
// case, without scheme, "www.", port, path or trailing dot.
func NormalizeDomain(s string) (string, bool) {
	d := strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(d, "://"); i >= 0 {
		d = d[i+3:]
	}
	if i := strings.IndexAny(d, "/?#"); i >= 0 {
		d = d[:i]
	}
	if i := strings.LastIndexByte(d, ':'); i >= 0 {
		if strings.Trim(d[i+1:], "0123456789") != "" {
			return d, false
		}
		d = d[:i]
	}
	d = strings.TrimSuffix(strings.TrimPrefix(d, "www."), ".")
	if d == "" || len(d) > 253 || !strings.Contains(d, ".") {
		return d, false
	}
	labels := strings.Split(d, ".")
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return d, false // an IP address, not a domain
	}
	for _, label := range labels {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return d, false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return d, false
			}
		}
	}
	return d, true
}

// ErrTooManyAttributes refuses a merge that would give a prospect more
// than 50 other columns.
var ErrTooManyAttributes = valid.Field("body", "a prospect would hold more than 50 other columns once merged with what is stored")

// Merge applies a newer import of a prospect over an older one (the stored
// one, left unchanged): newer non-empty values win; attributes merge key
// by key, at most 50.
func Merge(old, newer store.ProspectInput) (store.ProspectInput, error) {
	out := old
	out.Attributes = make(map[string]string, len(old.Attributes)+len(newer.Attributes))
	for k, v := range old.Attributes {
		out.Attributes[k] = v
	}
	mergeInto(&out, newer)
	if len(out.Attributes) > maxAttributes {
		return old, ErrTooManyAttributes
	}
	return out, nil
}

// mergeInto applies newer over p in place.
func mergeInto(p *store.ProspectInput, newer store.ProspectInput) {
	pick := func(o *string, n string) {
		if n != "" {
			*o = n
		}
	}
	pick(&p.Company, newer.Company)
	pick(&p.Vertical, newer.Vertical)
	pick(&p.Region, newer.Region)
	pick(&p.ContactName, newer.ContactName)
	pick(&p.ContactEmail, newer.ContactEmail)
	pick(&p.ContactPhone, newer.ContactPhone)
	pick(&p.Notes, newer.Notes)
	if newer.Employees != nil {
		p.Employees = newer.Employees
	}
	if p.Attributes == nil {
		p.Attributes = map[string]string{}
	}
	for k, v := range newer.Attributes {
		p.Attributes[k] = v
	}
}
