// Command dbbytes says where a Garrison database's bytes go: each table
// and index, its pages' bytes and its share per stored event, and the
// groups they make (the events' rows, their indexes, their text index,
// their originals, alerts, rollups, the rest).
//
//	go run ./bench/dbbytes DATA_DIR/garrison.db
//
// It reads the file through SQLite's dbstat table, read-only; run it on a
// stopped server's database or a copy (bench/suite --keep leaves one).
// Tables and indexes under 1 MiB are summed on one line.
package main

import (
	"context"
	"fmt"
	"os"

	"garrison/bench/internal/dbstat"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dbbytes PATH/garrison.db")
		os.Exit(2)
	}
	r, err := dbstat.Read(context.Background(), os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r.Write(os.Stdout, r.PerEvent(1<<20))
}
