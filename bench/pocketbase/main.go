// Command pocketbase is the PocketBase baseline of bench/suite, in a module
// of its own so the server's module never depends on PocketBase:
//
//	go build -o pbbench . && ./pbbench --dir DIR --addr 127.0.0.1:PORT \
//	    --import garrison.db --token-file TOKEN
//
// It bootstraps a PocketBase app in DIR, creates an "events" collection
// shaped like Garrison's events table (with an index on ts), copies every
// event of the Garrison database into it, creates a user, writes that
// user's auth token to TOKEN, and serves PocketBase's API over HTTPS with a
// self-signed certificate. Records may be listed by any authenticated user.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	_ "github.com/pocketbase/pocketbase/migrations" // the system tables
	"github.com/pocketbase/pocketbase/tools/types"
	_ "modernc.org/sqlite" // PocketBase's own driver; also used for the import
)

func main() {
	dir := flag.String("dir", "pb_data", "PocketBase data directory")
	addr := flag.String("addr", "127.0.0.1:8090", "HTTPS listen address")
	src := flag.String("import", "", "Garrison database whose events to copy in")
	tokenFile := flag.String("token-file", "", "where to write a user's auth token")
	flag.Parse()
	if err := run(*dir, *addr, *src, *tokenFile); err != nil {
		fmt.Fprintln(os.Stderr, "pocketbase:", err)
		os.Exit(2)
	}
}

func run(dir, addr, src, tokenFile string) error {
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		return err
	}
	if err := app.RunAllMigrations(); err != nil {
		return err
	}
	began := time.Now()
	n, err := importEvents(app, src)
	if err != nil {
		return err
	}
	fmt.Printf("imported %d events in %.1f s\n", n, time.Since(began).Seconds())
	token, err := userToken(app)
	if err != nil {
		return err
	}
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		return err
	}
	cfg, err := selfSignedTLS()
	if err != nil {
		return err
	}
	app.OnServe().BindFunc(func(e *core.ServeEvent) error {
		e.InstallerFunc = nil // no superuser install link: nobody uses the dashboard
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		e.Listener = tls.NewListener(ln, cfg)
		return e.Next()
	})
	return apis.Serve(app, apis.ServeConfig{HttpAddr: addr})
}

// importEvents creates the events collection and copies Garrison's events
// into it in one INSERT … SELECT (PocketBase's record API would take far
// longer for a million rows and measure nothing we serve).
func importEvents(app core.App, src string) (int64, error) {
	c := core.NewBaseCollection("events")
	c.ListRule = types.Pointer(`@request.auth.id != ""`)
	c.Fields.Add(
		&core.TextField{Name: "org"},
		&core.TextField{Name: "type"},
		&core.TextField{Name: "severity"},
		&core.NumberField{Name: "ts"}, // unix milliseconds, as Garrison stores it
		&core.TextField{Name: "source"},
		&core.TextField{Name: "asset"},
		&core.TextField{Name: "message"},
		&core.TextField{Name: "indicator"},
		&core.JSONField{Name: "details"},
	)
	c.AddIndex("idx_events_ts", false, "ts", "")
	if err := app.Save(c); err != nil {
		return 0, fmt.Errorf("create the events collection: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(app.DataDir(), "data.db")+"?"+q.Encode())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // ATTACH is per connection
	if _, err := db.Exec(`ATTACH DATABASE ? AS g`, "file:"+src+"?mode=ro"); err != nil {
		return 0, fmt.Errorf("attach %s: %w", src, err)
	}
	res, err := db.Exec(`INSERT INTO events (id, org, type, severity, ts, source, asset, message, indicator, details)
		SELECT printf('e%014d', seq), org_id, type,
			CASE severity WHEN 0 THEN 'info' WHEN 1 THEN 'low' WHEN 2 THEN 'medium' WHEN 3 THEN 'high' ELSE 'critical' END,
			ts, source, asset, message, indicator, details
		FROM g.events ORDER BY seq`)
	if err != nil {
		return 0, fmt.Errorf("copy the events: %w", err)
	}
	return res.RowsAffected()
}

// userToken creates a user in the default users collection and returns
// its auth token.
func userToken(app core.App) (string, error) {
	users, err := app.FindCollectionByNameOrId("users")
	if err != nil {
		return "", err
	}
	u := core.NewRecord(users)
	u.SetEmail("bench@example.com")
	u.SetPassword("correct horse battery staple")
	if err := app.Save(u); err != nil {
		return "", fmt.Errorf("create the user: %w", err)
	}
	return u.NewAuthToken()
}

// selfSignedTLS is an in-memory ECDSA P-256 certificate for 127.0.0.1, the
// kind Garrison and the suite's other baselines use.
func selfSignedTLS() (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "bench pocketbase"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12,
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, nil
}
