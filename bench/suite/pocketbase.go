package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// startPocketBase builds the PocketBase baseline (its own module, so the
// server's module never requires PocketBase), starts it on a copy of the
// seeded events and returns its two targets, or why it was skipped.
func startPocketBase(ctx context.Context, o options, tmp, garrisonDB string, res *results) ([]target, string) {
	if o.pocketbase == "off" {
		return nil, "turned off with --pocketbase off"
	}
	if _, err := os.Stat(filepath.Join(o.pocketbase, "go.mod")); err != nil {
		return nil, "no module at " + o.pocketbase
	}
	if out, err := exec.CommandContext(ctx, "go", "-C", o.pocketbase, "list", "-m", "github.com/pocketbase/pocketbase").Output(); err == nil {
		res.PocketBase = strings.TrimSpace(strings.TrimPrefix(string(out), "github.com/pocketbase/pocketbase"))
	}
	fmt.Printf("building the PocketBase baseline %s …\n", res.PocketBase)
	bin := filepath.Join(tmp, "pbbench")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = o.pocketbase
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("go build in %s failed (%v): %s", o.pocketbase, err, lastLines(strings.TrimSpace(string(out)), 3))
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err.Error()
	}
	tokenFile := filepath.Join(tmp, "pocketbase.token")
	args := []string{"--dir", filepath.Join(tmp, "pb_data"), "--addr", addr, "--import", garrisonDB, "--token-file", tokenFile}
	fmt.Println("importing the events into PocketBase …")
	began := time.Now()
	c, err := startChild("pocketbase", bin, args, filepath.Join(tmp, "pocketbase.log"))
	if err != nil {
		return nil, err.Error()
	}
	var token string
	for token == "" { // written once the import is done
		b, _ := os.ReadFile(tokenFile)
		if token = strings.TrimSpace(string(b)); token != "" {
			break
		}
		if !c.alive() || time.Since(began) > 10*time.Minute || ctx.Err() != nil {
			c.stop()
			return nil, "it did not start: " + lastLines(strings.TrimSpace(c.output()), 5)
		}
		time.Sleep(50 * time.Millisecond)
	}
	base := "https://" + addr + "/api/collections/events/records?perPage=50&sort=-ts"
	if _, err := c.waitHealthy(ctx, insecureClient(10*time.Second), base, token, time.Now(), time.Minute); err != nil {
		c.stop()
		return nil, err.Error()
	}
	fmt.Printf("PocketBase ready after %.1f s: %s\n", time.Since(began).Seconds(), lastLines(strings.TrimSpace(c.output()), 1))
	return []target{
		{Name: "pb-total", URL: base, bearer: token, Auth: "pocketbase user", pid: c.pid()},
		{Name: "pb-skiptotal", URL: base + "&skipTotal=1", bearer: token, Auth: "pocketbase user", pid: c.pid()},
	}, ""
}
