package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// limits lifts the rate limits so they never refuse a measured request.
const limits = "auth=1000000/1m,login=1000000/1m,register=1000000/1m,reset=1000000/1m," +
	"jwt=100000000/1m,apikey=100000000/1m,agent-runs=1000000/1m"

// garrison is how to start the server under test, again and again, on one
// data directory and one port.
type garrison struct {
	bin, dir, addr string
	extra          []string
	profiles       string // when set, each start writes its CPU profile here (--pgo)
	starts         int    // so far; names each start's profile
	cl             *http.Client
	proc           *child // the running process, nil when stopped
}

func (g *garrison) base() string    { return "https://" + g.addr }
func (g *garrison) dataDir() string { return filepath.Join(g.dir, "data") }
func (g *garrison) dbPath() string  { return filepath.Join(g.dataDir(), "garrison.db") }

// buildGarrison compiles the repository's main package into bin.
func buildGarrison(ctx context.Context, repo, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w", repo, err)
	}
	return nil
}

// start runs `garrison serve` and returns the time from process start to
// the first 200 from the health check.
func (g *garrison) start(ctx context.Context) (time.Duration, error) {
	args := append([]string{"serve", "--data", g.dataDir(), "--addr", g.addr, "--http-addr", "",
		"--log-level", "warn", "--limits", limits}, g.extra...)
	if g.profiles != "" {
		args = append(args, "--cpu-profile", filepath.Join(g.profiles, fmt.Sprintf("serve-%d.pprof", g.starts)))
	}
	g.starts++
	began := time.Now()
	p, err := startChild("garrison", g.bin, args, filepath.Join(g.dir, "garrison.log"))
	if err != nil {
		return 0, err
	}
	g.proc = p
	d, err := p.waitHealthy(ctx, g.cl, g.base()+"/api/dashboard/health", "", began, 120*time.Second)
	if err != nil {
		p.stop()
		g.proc = nil
	}
	return d, err
}

func (g *garrison) stop() {
	if g.proc != nil {
		g.proc.stop()
		g.proc = nil
	}
}

// call sends a JSON request and decodes a JSON answer, wanting status want.
func call(ctx context.Context, cl *http.Client, method, url, bearer string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := cl.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s %s", method, url, resp.Status, strings.TrimSpace(string(raw)))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: %w in %s", method, url, err, raw)
		}
	}
	return nil
}

// credentials are what the load targets send, and the organization they
// act in.
type credentials struct {
	JWT, ReadKey, WriteKey, AdminKey string
	OrgID                            string
}

// setup registers an admin in a new organization and makes a read, a
// write and an admin API key.
func (g *garrison) setup(ctx context.Context) (credentials, error) {
	var c credentials
	var reg struct {
		Token string `json:"token"`
		User  struct {
			OrgID string `json:"org_id"`
		} `json:"user"`
	}
	err := call(ctx, g.cl, http.MethodPost, g.base()+"/api/auth/register", "", map[string]string{
		"email": "bench@example.com", "password": "correct horse battery staple", "name": "Bench", "org": "Bench Org",
	}, http.StatusCreated, &reg)
	if err != nil {
		return c, err
	}
	if reg.Token == "" {
		return c, fmt.Errorf("register answered no token")
	}
	if reg.User.OrgID == "" {
		return c, fmt.Errorf("register answered no user.org_id")
	}
	c.JWT, c.OrgID = reg.Token, reg.User.OrgID
	for _, k := range []struct {
		scope string
		dst   *string
	}{{"read", &c.ReadKey}, {"write", &c.WriteKey}, {"admin", &c.AdminKey}} {
		var key struct {
			Data struct {
				Key string `json:"key"`
			} `json:"data"`
		}
		err := call(ctx, g.cl, http.MethodPost, g.base()+"/api/api-keys", c.JWT,
			map[string]string{"name": "bench " + k.scope, "scope": k.scope}, http.StatusCreated, &key)
		if err != nil {
			return c, err
		}
		if key.Data.Key == "" {
			return c, fmt.Errorf("POST /api/api-keys answered no data.key")
		}
		*k.dst = key.Data.Key
	}
	return c, nil
}

// dbBytes is the size of the database and its WAL now.
func (g *garrison) dbBytes() (db, wal int64) {
	if st, err := os.Stat(g.dbPath()); err == nil {
		db = st.Size()
	}
	if st, err := os.Stat(g.dbPath() + "-wal"); err == nil {
		wal = st.Size()
	}
	return db, wal
}
