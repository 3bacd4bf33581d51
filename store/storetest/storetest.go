// Package storetest opens a real store over Garrison's own schema in a
// test's temporary directory, for the tests of every package above store.
package storetest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"garrison/store"
)

var (
	schemaOnce sync.Once
	schema     string
	schemaErr  error
)

// Schema is schema.sql at the root of the module.
func Schema(t testing.TB) string {
	t.Helper()
	schemaOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		var b []byte
		b, schemaErr = os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "schema.sql"))
		schema = string(b)
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	return schema
}

// Open opens a store in t.TempDir, maintaining it in the background until
// the test ends, then closing it.
func Open(t testing.TB) *store.Store {
	t.Helper()
	return OpenWith(t, store.Config{})
}

// OpenWith is Open with the rest of c (a clock, intervals); its Path and
// Schema are Open's.
func OpenWith(t testing.TB, c store.Config) *store.Store {
	t.Helper()
	c.Path, c.Schema = filepath.Join(t.TempDir(), "garrison.db"), Schema(t)
	return opened(t, c)
}

// Engines are the databases the store runs on: the embedded SQLite file
// and PostgreSQL.
var Engines = []string{"sqlite", "postgres"}

// OpenOn is OpenWith on an engine of Engines: on PostgreSQL, a new
// database of the test cluster (Postgres), the test skipped without one.
func OpenOn(t testing.TB, engine string, c store.Config) *store.Store {
	t.Helper()
	if engine == "postgres" {
		c.Database = Postgres(t)
	}
	return OpenWith(t, c)
}

// EachEngine runs a test on every engine, as subtests named by it.
func EachEngine(t *testing.T, test func(t *testing.T, engine string)) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}

func opened(t testing.TB, c store.Config) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { st.Maintain(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))) })
	t.Cleanup(func() {
		stop()
		wg.Wait()
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// Account registers an organization named name in st, with its admin at
// name@example.test, and returns the admin.
func Account(t testing.TB, st *store.Store, name string) store.User {
	t.Helper()
	email := name + "@example.test"
	u, err := st.Register(context.Background(), store.NewAccount{Email: email, Name: name, PasswordHash: "x", OrgName: name,
		Plan: "starter", Verify: store.UserToken{Hash: []byte(name), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)},
		VerifyMail: store.Mail{To: email, Subject: "s", Body: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	return u
}
