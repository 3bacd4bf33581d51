package main

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// The baselines run as subcommands of this program, each its own process,
// so they are measured the way Garrison is.

// healthBody is what Garrison's health check answers.
var healthBody = []byte(`{"success":true,"data":{"status":"ok"}}`)

// runHello is the floor of any HTTPS JSON server on this machine: net/http
// answering a constant.
func runHello(args []string) int {
	fs := flag.NewFlagSet("hello", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fs.Parse(args)
	err := serveTLS(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(healthBody)
	}))
	fmt.Fprintln(os.Stderr, "hello:", err)
	return 2
}

// headersBody is Garrison's health answer as this build writes it.
var headersBody = []byte(`{"success":true,"data":{"registration":"open","status":"ok","version":"devel"}}` + "\n")

// runHeaders is hello answering what Garrison's health check answers: its
// body and the headers every Garrison answer carries (request id, the
// security headers, the three rate-limit figures the spec requires), with
// fixed values and nothing else. Between hello and health it tells the
// cost of the answer's shape from the cost of Garrison's middleware.
func runHeaders(args []string) int {
	fs := flag.NewFlagSet("headers", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fs.Parse(args)
	err := serveTLS(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Request-Id"] = []string{"3260255802cd99e11"}
		h["X-Content-Type-Options"] = []string{"nosniff"}
		h["Cache-Control"] = []string{"no-store"}
		h["Content-Type"] = []string{"application/json; charset=utf-8"}
		h["Strict-Transport-Security"] = []string{"max-age=63072000; includeSubDomains"}
		h["X-Ratelimit-Limit"] = []string{"100000000"}
		h["X-Ratelimit-Remaining"] = []string{"99999999"}
		h["X-Ratelimit-Reset"] = []string{"1"}
		w.WriteHeader(http.StatusOK)
		w.Write(headersBody)
	}))
	fmt.Fprintln(os.Stderr, "headers:", err)
	return 2
}

// limitEvent is one row as the limit server answers it.
type limitEvent struct {
	ID        string          `json:"id"`
	OrgID     string          `json:"org_id"`
	Type      string          `json:"type"`
	Severity  string          `json:"severity"`
	Timestamp string          `json:"timestamp"`
	Source    string          `json:"source"`
	Asset     string          `json:"asset"`
	Message   string          `json:"message"`
	Indicator string          `json:"indicator"`
	Details   json.RawMessage `json:"details"`
}

var severityNames = []string{"info", "low", "medium", "high", "critical"}

// newestQuery is Garrison's own order for its events page, which the
// events_org_ts index serves without a sort (ts and then seq descending),
// in Garrison's own layout: the organization by number, the id derived
// from the seq (store/eventid.go).
const newestQuery = `SELECT seq, type, severity, ts, source, asset, message, indicator, details
	FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?) ORDER BY ts DESC, seq DESC LIMIT 50`

// runLimit is the design-shaped server: verify a session JWT, read the 50
// newest events of the caller's organization from a copy of Garrison's
// database, encode them. Nothing else, so it is the limit of what the
// design can reach on this machine.
func runLimit(args []string) int {
	fs := flag.NewFlagSet("limit", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	dbPath := fs.String("db", "", "copy of Garrison's database")
	tokenFile := fs.String("token-file", "", "where to write the session token it minted")
	org := fs.String("org", "", "the organization whose events it reads (default the first event's)")
	fs.Parse(args)
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "limit:", err); return 2 }

	q := url.Values{}
	q.Set("_txlock", "deferred")
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "query_only(1)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: *dbPath}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return fail(err)
	}
	readers := max(4, 2*runtime.GOMAXPROCS(0)) // Garrison's read pool size
	db.SetMaxOpenConns(readers)
	db.SetMaxIdleConns(readers)
	ctx := context.Background()
	if *org == "" {
		if err := db.QueryRowContext(ctx, `SELECT n.org_id FROM events e JOIN org_numbers n ON n.num = e.org LIMIT 1`).Scan(org); err != nil {
			return fail(fmt.Errorf("find the organization: %w", err))
		}
	}
	var key []byte
	if err := db.QueryRowContext(ctx, `SELECT key FROM event_id_key`).Scan(&key); err != nil {
		return fail(fmt.Errorf("the event id key: %w", err))
	}
	ids, err := aes.NewCipher(key)
	if err != nil {
		return fail(err)
	}
	stmt, err := db.PrepareContext(ctx, newestQuery)
	if err != nil {
		return fail(err)
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	token, err := mintJWT(secret, claims{Sub: "bench", Org: *org, Exp: time.Now().Add(24 * time.Hour).Unix()})
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(*tokenFile, []byte(token), 0o600); err != nil {
		return fail(err)
	}

	err = serveTLS(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		c, err := verifyJWT(secret, bearer, time.Now())
		if !ok || err != nil {
			http.Error(w, `{"success":false}`, http.StatusUnauthorized)
			return
		}
		events, err := newest(r.Context(), stmt, ids, c.Org)
		if err != nil {
			http.Error(w, `{"success":false}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(struct {
			Success bool         `json:"success"`
			Data    []limitEvent `json:"data"`
		}{true, events})
	}))
	return fail(err)
}

func newest(ctx context.Context, stmt *sql.Stmt, ids cipher.Block, org string) ([]limitEvent, error) {
	rows, err := stmt.QueryContext(ctx, org)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]limitEvent, 0, 50)
	for rows.Next() {
		var e limitEvent
		var seq, sev, ts int64
		var details sql.NullString
		if err := rows.Scan(&seq, &e.Type, &sev, &ts, &e.Source, &e.Asset, &e.Message, &e.Indicator, &details); err != nil {
			return nil, err
		}
		e.ID, e.OrgID = eventID(ids, seq), org
		if sev >= 0 && int(sev) < len(severityNames) {
			e.Severity = severityNames[sev]
		}
		e.Timestamp = time.UnixMilli(ts).UTC().Format(time.RFC3339)
		if details.Valid {
			e.Details = json.RawMessage(details.String)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// eventID is the id Garrison derives from an event's seq: the seq and
// eight zero bytes encrypted as one AES block, in base32.
func eventID(ids cipher.Block, seq int64) string {
	const crockford = "0123456789abcdefghjkmnpqrstvwxyz"
	var plain, sealed [16]byte
	binary.BigEndian.PutUint64(plain[:8], uint64(seq))
	ids.Encrypt(sealed[:], plain[:])
	hi, lo := binary.BigEndian.Uint64(sealed[:8]), binary.BigEndian.Uint64(sealed[8:])
	var out [30]byte
	copy(out[:], "evt_")
	for i := 29; i >= 4; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}
