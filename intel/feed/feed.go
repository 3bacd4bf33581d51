// Package feed reads the files an operator feeds to Garrison's local
// vulnerability-intelligence store: NVD CVE API 2.0 pages and feed files, CVE
// JSON 5 records (single, JSON array or NDJSON, e.g. CISA vulnrichment), the
// CISA KEV catalog (JSON and CSV), FIRST EPSS scores (CSV) and the MITRE
// ATT&CK Enterprise STIX 2.x bundle.
//
// Detect says what a file is from its first bytes; Parse streams its records,
// normalized, to the callbacks of a Handler; Validate runs the same code with
// no callbacks so that a caller can refuse a malformed file before it writes
// anything (pass 1), then Parse it again to write (pass 2).
//
// Gzip input (magic 1f 8b) is decompressed transparently and a UTF-8 byte
// order mark is skipped. All offsets are byte offsets in the decompressed
// stream, BOM included.
//
// # Memory
//
// Nothing reads a whole file or a whole JSON array. JSON files are walked
// token by token with encoding/json's Decoder (Token for the outer structure,
// Decode for one record at a time), CSV files row by row with encoding/csv,
// NDJSON line by line. What may be buffered is capped:
//
//   - the JSON decoder reads through a limiting reader re-armed from
//     Decoder.InputOffset before every record and token: it delivers at most
//     MaxRecordSize + 4 KiB bytes past that point, so the decoder can never
//     hold more than one oversized record before it fails;
//   - encoding/csv reads through the same kind of reader, re-armed from
//     csv.Reader.InputOffset before every row, with MaxLineSize;
//   - NDJSON lines (and the EPSS comment line) are read with
//     bufio.Reader.ReadSlice and refused past MaxRecordSize (MaxLineSize).
//
// Hitting a cap is a *FileError; a record that fits within the 4 KiB slack
// but is over the exact limit is measured once read and refused the same
// way. Memory in use is thus bounded by about twice the largest record
// accepted plus fixed buffers (two 64 KiB bufio buffers, gzip's window).
//
// # Caps
//
// What a record passed on may hold is capped too, whatever the file held
// (MaxDescription and the constants beside it): a text over its cap is cut
// with valid.Clip's marker ("… [truncated from 15.0 MiB]"), an entry whose
// value would be wrong cut (a URL, a CPE name, a version bound, a CVSS
// vector) is left out, a list keeps its first entries, and Handler.Cut is
// told what the record lost. A 15 MiB description costs its record's
// decoding, never the records after the parser.
//
// # Errors
//
// A record that does not decode, or lacks what it must have (a CVE id of the
// shape CVE-YYYY-NNNN…, a KEV cveID, an EPSS score in [0,1], an ATT&CK id), is
// a Problem: it is reported to Handler.Problem with its index and offset,
// counted in Summary.Skipped, and the parse goes on. A malformed file (broken
// JSON syntax, wrong top-level shape, a CSV without its header, a truncated
// or corrupt gzip stream, a record over the size limit) is a *FileError,
// returned as soon as it is seen; records before the break have already been
// passed to the handlers. An error returned by a handler stops the parse and
// is returned as is.
//
// CVE JSON 5 input may be one record, a JSON array of records, NDJSON (one
// record per line: a line that is not valid JSON is a Problem, unless it is
// the last one and has no newline, which is a truncated file) or
// pretty-printed records one after another.
package feed

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"garrison/valid"
)

// Format names a feed file format.
type Format string

// The formats Parse reads.
const (
	NVD     Format = "nvd"     // NVD CVE API 2.0 page or NVD 2.0 JSON feed file
	CVE5    Format = "cve5"    // CVE JSON 5 record(s): one object, an array, or NDJSON
	KEVJSON Format = "kev"     // CISA KEV catalog, JSON
	KEVCSV  Format = "kev-csv" // CISA KEV catalog, CSV
	EPSS    Format = "epss"    // FIRST EPSS scores, CSV
	ATTACK  Format = "attack"  // MITRE ATT&CK STIX 2.x bundle
)

// Size limits (see the package documentation for how they are enforced).
const (
	MaxRecordSize = 16 << 20 // largest JSON record (or JSON token, or NDJSON line)
	MaxLineSize   = 1 << 20  // largest CSV row (header and EPSS comment line included)
)

const (
	peekSize = 64 << 10 // what Detect looks at
	slack    = 4 << 10  // read-ahead allowed past a limit before the exact check
)

// Limits in force; tests lower them.
var (
	maxRecordSize int64 = MaxRecordSize
	maxLineSize   int64 = MaxLineSize
)

// ErrUnknownFormat is wrapped by the error Detect returns for input it does
// not recognize.
var ErrUnknownFormat = errors.New("feed: unrecognized file format")

// Metric is one CVSS score.
type Metric struct {
	Version   string  // "4.0", "3.1", "3.0", "2.0"
	Vector    string  // as published, e.g. "CVSS:3.1/AV:N/AC:L/..." or "AV:N/AC:L/Au:N/C:P/I:P/A:P"
	BaseScore float64 //
	Severity  string  // lower-case ("critical", "high", ...); "" when not published (CVE 5 cvssV2_0)
	Source    string  // e.g. "nvd@nist.gov", or the CNA/ADP short name
	Type      string  // "Primary"/"Secondary" (NVD) or "cna"/"adp" (CVE 5)
}

// Reference is a link about a CVE, with its tags as published (NVD: "Patch",
// "Vendor Advisory", "Exploit", ...; CVE 5: "patch", "vendor-advisory",
// "exploit", ..., and x_* tags).
type Reference struct {
	URL  string
	Tags []string
}

// CPEMatch is one NVD configuration cpeMatch entry.
type CPEMatch struct {
	Criteria                       string // cpe:2.3 name, possibly with wildcards
	Vulnerable                     bool
	StartIncluding, StartExcluding string
	EndIncluding, EndExcluding     string
	// RunningOn is an AND configuration's platforms, '|'-separated CPE
	// criteria: the product is vulnerable only running on one of them
	// ("Acrobat on Windows"); "" when any platform will do.
	RunningOn string `json:",omitempty"`
}

// AffectedVersion is one CVE 5 affected[].versions[] entry.
type AffectedVersion struct {
	Version, LessThan, LessThanOrEqual, Status, VersionType string
}

// Affected is one CVE 5 affected[] entry.
type Affected struct {
	Vendor, Product string
	Versions        []AffectedVersion
	DefaultStatus   string
	CPEs            []string
}

// SSVC is the CISA ADP (vulnrichment) SSVC decision point set.
type SSVC struct {
	Exploitation    string `json:"exploitation"` // as published: "none", "poc", "active"
	Automatable     string `json:"automatable"`  // "yes", "no"
	TechnicalImpact string `json:"technical_impact"`
	Timestamp       string `json:"timestamp"`
}

// CVE is one CVE record, normalized from NVD 2.0 or CVE JSON 5.
type CVE struct {
	ID           string    // upper case "CVE-2021-44228"
	Source       Format    // NVD or CVE5
	State        string    // NVD vulnStatus ("Analyzed", "Modified", "Rejected", ...) or CVE 5 cveMetadata.state ("PUBLISHED", "REJECTED")
	Published    time.Time // UTC; timestamps without a zone are taken as UTC; zero when absent or unreadable
	Modified     time.Time // NVD lastModified / CVE 5 dateUpdated
	Description  string    // the first English description (lang "en", "en-US", ...); else the first one; for rejected CVE 5 records the rejection reason
	Metrics      []Metric  // every CVSS metric: NVD v4.0, v3.1, v3.0, v2 in that order; CVE 5 cna then adp containers, in published order
	CWEs         []string  // "CWE-79", deduplicated, order kept; NVD-CWE-Other/noinfo and CWE-noinfo dropped
	References   []Reference
	CPEMatches   []CPEMatch // NVD configurations[].nodes[].cpeMatch[] flattened, vulnerable ones only; CVE 5: none
	Affected     []Affected // CVE 5 cna.affected then adp affected; NVD: none
	SSVC         *SSVC      // CISA ADP vulnrichment SSVC, when present
	KEVDateAdded string     // CISA ADP "kev" metric dateAdded (CVE 5) or cisaExploitAdd (NVD), e.g. "2021-12-10"
}

// KEV is one CISA Known Exploited Vulnerabilities catalog entry.
type KEV struct {
	CVEID, VendorProject, Product, Name, DateAdded, ShortDescription, RequiredAction, DueDate, KnownRansomware, Notes string
	CWEs                                                                                                              []string
}

// EPSSScore is one row of an EPSS scores file.
type EPSSScore struct {
	CVEID             string
	Score, Percentile float64
	ScoreDate         string // from the comment line, "2024-10-25", or ""
	ModelVersion      string // from the comment line, "v2023.03.01", or ""
}

// Technique is an ATT&CK attack-pattern.
type Technique struct {
	ID, Name   string   // "T1059.001", "PowerShell"
	Tactics    []string // kill-chain phase names, e.g. "initial-access"
	Deprecated bool     // x_mitre_deprecated or revoked
}

// Tactic is an ATT&CK x-mitre-tactic.
type Tactic struct {
	ID, Name, ShortName string // "TA0001", "Initial Access", "initial-access"
}

// Problem is a malformed record: skipped, reported with its position.
type Problem struct {
	Index   int    // 0-based record index in the file (array element, data row, NDJSON line)
	Offset  int64  // byte offset of the record in the (decompressed) stream
	ID      string // the record's id when it could be read
	Message string
}

// Handler receives the records of a file. Nil callbacks are skipped.
type Handler struct {
	CVE       func(CVE) error
	KEV       func(KEV) error
	EPSS      func(EPSSScore) error
	Technique func(Technique) error
	Tactic    func(Tactic) error
	Problem   func(Problem) // nil: problems are only counted
	// Cut is told of a record passed on with values cut to the caps (see
	// MaxDescription): its Message says what it lost. It comes before the
	// record's own callback. Nil: cuts are only counted.
	Cut func(Problem)
}

// Summary says what a parse saw.
type Summary struct {
	Format  Format
	Records int // records passed to (or, for Validate, accepted for) the handlers
	Skipped int // problems
	Cut     int // records passed on with values cut to the caps
	// Meta holds file-level values as published: NVD resultsPerPage,
	// startIndex, totalResults, format, version, timestamp; KEV title,
	// catalogVersion, dateReleased, count; EPSS model_version, score_date;
	// ATT&CK id, spec_version, collection, attack_version. "compression" is
	// "gzip" for gzipped input. At most MaxMetaKeys values, each cut at
	// MaxMetaValue bytes.
	Meta map[string]string
}

// FileError is a malformed file: the parse stopped at Offset.
type FileError struct {
	Offset  int64 // byte offset in the (decompressed) stream
	Message string
	Err     error // underlying cause when there is one (read error, gzip error, ...)
}

func (e *FileError) Error() string {
	return fmt.Sprintf("feed: malformed file at byte %d: %s", e.Offset, e.Message)
}

func (e *FileError) Unwrap() error { return e.Err }

// input is a prepared (decompressed, buffered) stream. Detect returns one;
// Parse accepts one without wrapping it again.
type input struct {
	br   *bufio.Reader
	gzip bool
}

func (in *input) Read(p []byte) (int, error) { return in.br.Read(p) }

// sticky keeps returning a reader's first error: bufio.Reader hands an error
// out once, and Detect's Peek may be the one to see it.
type sticky struct {
	r   io.Reader
	err error
}

func (s *sticky) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// open prepares r: gunzip when it starts with the gzip magic.
func open(r io.Reader) (*input, error) {
	if in, ok := r.(*input); ok {
		return in, nil
	}
	br := bufio.NewReaderSize(&sticky{r: r}, peekSize)
	magic, err := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &FileError{Message: "bad gzip header: " + err.Error(), Err: err}
		}
		return &input{br: bufio.NewReaderSize(&sticky{r: zr}, peekSize), gzip: true}, nil
	}
	if err != nil && err != io.EOF {
		return nil, &FileError{Message: "read error: " + err.Error(), Err: err}
	}
	return &input{br: br}, nil
}

// skipPrefix discards a UTF-8 BOM and, when ws is set, leading white space;
// it returns how many bytes it discarded.
func (in *input) skipPrefix(ws bool) int64 {
	var n int64
	if b, _ := in.br.Peek(3); bytes.Equal(b, bom) {
		in.br.Discard(3)
		n = 3
	}
	for ws {
		c, err := in.br.ReadByte()
		if err != nil {
			break
		}
		if !isSpace(c) {
			in.br.UnreadByte()
			break
		}
		n++
	}
	return n
}

var bom = []byte{0xef, 0xbb, 0xbf}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Detect peeks at r (after gunzip) and says its format without consuming
// what it read: the returned reader yields the whole (decompressed) stream
// and is what to pass to Parse. On failure the reader is still returned when
// r could be opened. An unrecognized file is an error wrapping
// ErrUnknownFormat that quotes what was seen; a corrupt gzip header is a
// *FileError.
func Detect(r io.Reader) (Format, io.Reader, error) {
	in, err := open(r)
	if err != nil {
		return "", nil, err
	}
	head, err := in.br.Peek(peekSize)
	if len(head) == 0 && err != nil && err != io.EOF {
		return "", in, &FileError{Message: "read error: " + err.Error(), Err: err}
	}
	// A read error after some data (a truncated gzip stream, say) is left
	// for Parse to report where it happens.
	f, err := detect(head)
	return f, in, err
}

func detect(head []byte) (Format, error) {
	b := bytes.TrimPrefix(head, bom)
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		if len(head) == peekSize {
			return "", fmt.Errorf("%w: only white space in the first %d bytes", ErrUnknownFormat, peekSize)
		}
		return "", fmt.Errorf("%w: empty input", ErrUnknownFormat)
	}
	switch b[0] {
	case '{':
		return detectObject(b)
	case '[':
		return CVE5, nil
	}
	line := b
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, "\r")
	lower := strings.ToLower(string(line))
	switch {
	case strings.HasPrefix(lower, "#model_version"), strings.HasPrefix(lower, "cve,epss"),
		strings.HasPrefix(lower, "#") && strings.Contains(lower, "score_date"):
		return EPSS, nil
	case strings.HasPrefix(lower, "cveid,"), strings.HasPrefix(lower, `"cveid",`):
		return KEVCSV, nil
	}
	return "", unknown(b)
}

func unknown(b []byte) error {
	if len(b) > 48 {
		b = b[:48]
	}
	return fmt.Errorf("%w: starts with %q", ErrUnknownFormat, b)
}

// detectObject reads the leading keys of a JSON object (within the peeked
// bytes) until one of them decides the format. Keys may come in any order;
// if the metadata keys don't decide it, the first element of a
// "vulnerabilities" array does ("cve" → NVD, "cveID" → KEV).
func detectObject(b []byte) (Format, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var keys []string
	nvdPaging := false
	undecided := func(err error) (Format, error) {
		if nvdPaging {
			return NVD, nil
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && err != io.EOF {
			return "", fmt.Errorf("%w: invalid JSON: %v", ErrUnknownFormat, err)
		}
		if len(keys) == 0 {
			return "", unknown(b)
		}
		if len(keys) > 12 {
			keys = append(keys[:12], "…")
		}
		return "", fmt.Errorf("%w: JSON object with keys %s", ErrUnknownFormat, strings.Join(keys, ", "))
	}
	str := func() (string, error) {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		s, _ := t.(string)
		if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
			err = skipRest(dec)
		}
		return s, err
	}
	if _, err := dec.Token(); err != nil { // '{'
		return undecided(err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return undecided(err)
		}
		key, _ := t.(string)
		keys = append(keys, key)
		switch key {
		case "format":
			s, err := str()
			if err != nil {
				return undecided(err)
			}
			switch {
			case s == "NVD_CVE":
				return NVD, nil
			case strings.HasPrefix(s, "NVD_"):
				return "", fmt.Errorf("%w: NVD %s data, not CVE data", ErrUnknownFormat, s)
			}
		case "resultsPerPage", "startIndex", "totalResults":
			nvdPaging = true // the NVD CPE API has these too: wait for "format"
			if _, err := str(); err != nil {
				return undecided(err)
			}
		case "dataType":
			s, err := str()
			if err != nil {
				return undecided(err)
			}
			if s == "CVE_RECORD" {
				return CVE5, nil
			}
			return "", fmt.Errorf("%w: JSON dataType %q", ErrUnknownFormat, s)
		case "cveMetadata", "containers", "dataVersion":
			return CVE5, nil
		case "catalogVersion", "dateReleased":
			return KEVJSON, nil
		case "title":
			s, err := str()
			if err != nil {
				return undecided(err)
			}
			if strings.Contains(strings.ToLower(s), "known exploited") {
				return KEVJSON, nil
			}
		case "type":
			s, err := str()
			if err != nil {
				return undecided(err)
			}
			if s == "bundle" {
				return ATTACK, nil
			}
		case "objects":
			return ATTACK, nil
		case "CVE_Items", "CVE_data_type", "CVE_data_format":
			return "", fmt.Errorf("%w: NVD JSON 1.1 feed (retired by NVD; use the CVE API 2.0 or the 2.0 feeds)", ErrUnknownFormat)
		case "vulnerabilities":
			f, err := detectFirstRecord(dec)
			if f != "" || err != nil {
				return f, err
			}
		default:
			if err := skipValue(dec); err != nil {
				return undecided(err)
			}
		}
	}
	return undecided(nil)
}

// detectFirstRecord looks at the keys of the first element of an array.
func detectFirstRecord(dec *json.Decoder) (Format, error) {
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') || !dec.More() {
		return "", nil
	}
	if t, err = dec.Token(); err != nil || t != json.Delim('{') {
		return "", nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", nil
		}
		switch t {
		case "cve":
			return NVD, nil
		case "cveID":
			return KEVJSON, nil
		}
		if err := skipValue(dec); err != nil {
			return "", nil
		}
	}
	return "", nil
}

// skipValue skips the next value by walking its tokens.
func skipValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec)
	}
	return nil
}

// skipRest skips to the end of the object or array just opened.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// Parse streams the records of a file of the given format to h. r may be
// what Detect returned, or the raw file (gzip and BOM are handled either
// way). See the package documentation for Problems, *FileError and handler
// errors. The Summary is filled in as far as the parse went.
func Parse(format Format, r io.Reader, h Handler) (Summary, error) {
	sum := Summary{Format: format, Meta: map[string]string{}}
	in, err := open(r)
	if err != nil {
		return sum, err
	}
	if in.gzip {
		sum.Meta["compression"] = "gzip"
	}
	p := &parser{in: in, h: h, sum: sum}
	switch format {
	case NVD:
		err = p.parseNVD()
	case CVE5:
		err = p.parseCVE5()
	case KEVJSON:
		err = p.parseKEVJSON()
	case KEVCSV:
		err = p.parseKEVCSV()
	case EPSS:
		err = p.parseEPSS()
	case ATTACK:
		err = p.parseATTACK()
	default:
		err = fmt.Errorf("feed: unknown format %q", format)
	}
	return p.sum, err
}

// Validate parses r without handlers: it returns the same Summary and error
// Parse would, having passed nothing anywhere. Run it first so that a
// malformed file is refused before anything is written, then Parse.
func Validate(format Format, r io.Reader) (Summary, error) {
	return Parse(format, r, Handler{})
}

// parser is the state of one Parse.
type parser struct {
	in    *input
	h     Handler
	sum   Summary
	index int // next record index

	// JSON
	base int64 // bytes of the stream before what dec reads (BOM, ...)
	lim  *limitReader
	dec  *json.Decoder
}

// problem reports a skipped record. The id and the strings the message
// quotes are cut short (a 15 MiB id is quoted in 100 bytes).
func (p *parser) problem(idx int, off int64, id, format string, args ...any) {
	p.sum.Skipped++
	if p.h.Problem != nil {
		p.h.Problem(Problem{Index: idx, Offset: off, ID: valid.Clip(id, MaxWord), Message: fmt.Sprintf(format, quoted(args)...)})
	}
}

// cut reports a record passed on with values cut to the caps, when it was.
func (p *parser) cut(idx int, off int64, id string, c *cuts) {
	if !c.any() {
		return
	}
	p.sum.Cut++
	if p.h.Cut != nil {
		p.h.Cut(Problem{Index: idx, Offset: off, ID: id, Message: c.String()})
	}
}

// limitReader stops delivering bytes at an absolute position (limit),
// returning err there: what a decoder buffers is thereby capped.
type limitReader struct {
	r     io.Reader
	n     int64 // bytes delivered
	limit int64
	err   error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if room := l.limit - l.n; int64(len(p)) > room {
		if room <= 0 {
			return 0, l.err
		}
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

var (
	errTooLarge   = errors.New("record too large")
	errLineTooBig = errors.New("line too long")
)

// readErr is a *FileError for a failed read.
func readErr(off int64, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &FileError{Offset: off, Message: "unexpected end of input (truncated file?)", Err: err}
	}
	return &FileError{Offset: off, Message: "read error: " + err.Error(), Err: err}
}
