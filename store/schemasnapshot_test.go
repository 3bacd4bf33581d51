package store_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"garrison/store/storetest"
)

var updateSnapshot = flag.Bool("update-schema", false, "rewrite docs/current-schema.sql from a freshly migrated database")

// snapshotPath is where today's schema is written for readers.
const snapshotPath = "../docs/current-schema.sql"

// TestSchemaSnapshot: docs/current-schema.sql is the schema a freshly
// migrated database holds, so a reader sees today's tables and indexes
// without replaying schema.sql's migrations. After a migration, refresh it:
// go test ./store -run TestSchemaSnapshot -update-schema
func TestSchemaSnapshot(t *testing.T) {
	st := storetest.Open(t)
	rows, err := st.DB().Query(`SELECT type, name, sql FROM sqlite_schema
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY tbl_name, type = 'table' DESC, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString("-- Garrison's schema as a freshly migrated database holds it: generated from\n" +
		"-- sqlite_schema by TestSchemaSnapshot (store/schemasnapshot_test.go); do not edit.\n" +
		"-- schema.sql, at the root, is the migrations that build it.\n")
	var version int
	if err := st.DB().QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	b.WriteString("-- Schema version (PRAGMA user_version): " + strconv.Itoa(version) + "\n")
	for rows.Next() {
		var typ, name, sql string
		if err := rows.Scan(&typ, &name, &sql); err != nil {
			t.Fatal(err)
		}
		if typ == "table" {
			b.WriteString("\n")
		}
		b.WriteString(sql + ";\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if *updateSnapshot {
		if err := os.WriteFile(snapshotPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(snapshotPath)
	if err != nil {
		t.Fatalf("%v; write it with: go test ./store -run TestSchemaSnapshot -update-schema", err)
	}
	if string(want) != got {
		t.Fatalf("%s is not the schema the migrations build; refresh it with: go test ./store -run TestSchemaSnapshot -update-schema",
			filepath.Clean(snapshotPath))
	}
}
