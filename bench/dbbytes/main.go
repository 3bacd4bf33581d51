// Command dbbytes says where a Garrison database's bytes go: each table
// and index, its pages' bytes and its share per stored event.
//
//	go run ./bench/dbbytes DATA_DIR/garrison.db
//
// It reads the file through SQLite's dbstat table, read-only; run it on a
// stopped server's database or a copy (bench/suite --keep leaves one).
package main

import (
	"database/sql"
	"fmt"
	"os"
	"text/tabwriter"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dbbytes PATH/garrison.db")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer db.Close()
	var events int64
	if err := db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&events); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rows, err := db.Query(`SELECT name, SUM(pgsize), SUM(payload), SUM(unused) FROM dbstat GROUP BY name ORDER BY SUM(pgsize) DESC`)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer rows.Close()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "table or index\tMiB\tpayload MiB\tunused MiB\tbytes/event\t\n")
	var total int64
	for rows.Next() {
		var name string
		var size, payload, unused int64
		if err := rows.Scan(&name, &size, &payload, &unused); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		total += size
		if size < 1<<20 {
			continue
		}
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t\n", name, float64(size)/(1<<20), float64(payload)/(1<<20), float64(unused)/(1<<20),
			float64(size)/float64(max(events, 1)))
	}
	fmt.Fprintf(w, "all (%d events)\t%.1f\t\t\t%.1f\t\n", events, float64(total)/(1<<20), float64(total)/float64(max(events, 1)))
	w.Flush()
}
