package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"garrison/handlers/apitest"
	"garrison/store/storetest"
)

// The cluster test of issue 34: three nodes of the real binary on one
// PostgreSQL, on loopback, take mixed writes through all three (events,
// critical alerts notified to a webhook, tickets, agent runs, compliance
// audits, lead hunts, API keys) while random nodes are killed with SIGKILL
// and started again, at least ten times. Then every write a node
// acknowledged is there, every run ended and none was completed twice
// (runs killed mid-way were finished by the other nodes), no notification
// a receiver acknowledged came again, and a key revoked on one node is
// refused by the others on the next request.
func TestClusterSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the cluster test builds the binary and runs three nodes for a minute")
	}
	url := storetest.Postgres(t)
	c := startCluster(t, url, 3)
	admin := c.admin("ops@cluster.test")
	writeKey := c.do(0, "POST", "/api/api-keys", admin, map[string]any{"name": "sensors", "scope": "write"}).str("key")
	channel := c.do(1, "POST", "/api/notification-channels", admin, map[string]any{"name": "SOC webhook", "kind": "webhook",
		"url": c.hooks.URL + "/hook"}).str("id")
	c.do(2, "POST", "/api/notification-rules", admin, map[string]any{"name": "Critical", "min_severity": "critical", "channels": []string{channel}})

	var acked ackedWrites
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() { c.workload(ctx, w, admin, writeKey, &acked) })
	}
	kills := c.killRandomly(12, 700*time.Millisecond, 1500*time.Millisecond)
	stop()
	wg.Wait()
	c.allUp()
	t.Logf("%d kills; acknowledged: %d events, %d tickets, %d runs, %d keys", kills, len(acked.events), len(acked.tickets), len(acked.runs), len(acked.keys))
	if len(acked.events) == 0 || len(acked.tickets) == 0 || len(acked.runs) == 0 || len(acked.keys) == 0 {
		t.Fatal("the workload got too little acknowledged to check anything")
	}

	// Every run ends: those of killed nodes are taken over once their
	// lease lapses (store.RunLease).
	deadline := time.Now().Add(2 * time.Minute)
	for _, run := range acked.runs {
		for {
			status := c.do(rand.IntN(3), "GET", "/api/agents/"+run.agent+"/executions/"+run.id, admin, nil).str("status")
			if status == "completed" || status == "failed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s is still %s", run.id, status)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for i, id := range acked.events {
		if r := c.try(i%3, "GET", "/api/events/"+id, admin, nil); r.status != http.StatusOK {
			t.Errorf("acknowledged event %s: %d", id, r.status)
		}
	}
	for i, id := range acked.tickets {
		if r := c.try(i%3, "GET", "/api/tickets/"+id, admin, nil); r.status != http.StatusOK {
			t.Errorf("acknowledged ticket %s: %d", id, r.status)
		}
	}
	var keys string
	for offset := 0; ; offset += 100 {
		page := c.do(offset/100%3, "GET", fmt.Sprintf("/api/api-keys?limit=100&offset=%d", offset), admin, nil)
		keys += page.raw
		if list, _ := page.body["data"].([]any); len(list) < 100 {
			break
		}
	}
	for _, id := range acked.keys {
		if !strings.Contains(keys, id) {
			t.Errorf("acknowledged key %s is not listed", id)
		}
	}

	// No run was completed twice; some were taken over from a killed node.
	logs := c.logs()
	finished := map[string]int{}
	for _, line := range logs {
		if line["msg"] == "agent run finished" {
			finished[fmt.Sprint(line["run"])]++
		}
	}
	tookOver := 0
	for _, line := range logs {
		if line["msg"] == "took over agent runs whose node stopped" {
			tookOver++
		}
	}
	for _, run := range acked.runs {
		if finished[run.id] > 1 {
			t.Errorf("run %s was finished %d times", run.id, finished[run.id])
		}
	}
	if tookOver == 0 {
		t.Error("no node took over a run of a killed node")
	}
	t.Logf("runs taken over in %d recoveries", tookOver)

	// No acknowledged notification came twice, but for one whose sender
	// was killed between the receiver's answer and recording it (the
	// same webhook-id: Standard Webhooks receivers drop the second).
	for id, first := range c.hooks.duplicates() {
		if !c.killedWithin(first, killWindow) {
			t.Errorf("notification %s delivered again after its receiver acknowledged it, no node killed meanwhile", id)
		} else {
			t.Logf("notification %s sent again: its sender was killed %s after the receiver's answer", id, killWindow)
		}
	}
	if c.hooks.count() == 0 {
		t.Error("no critical alert was notified")
	}

	// A key revoked on one node is refused by the others at once.
	created := c.do(0, "POST", "/api/api-keys", admin, map[string]any{"name": "to revoke", "scope": "read"})
	key, keyID := created.str("key"), created.str("id")
	for n := range 3 {
		c.do(n, "GET", "/api/events?limit=1", key, nil) // held in each node's auth cache
	}
	c.do(0, "DELETE", "/api/api-keys/"+keyID, admin, nil)
	for n := 1; n < 3; n++ {
		if r := c.try(n, "GET", "/api/events?limit=1", key, nil); r.status != http.StatusUnauthorized {
			t.Errorf("node %d answered a key revoked on node 0 with %d", n, r.status)
		}
	}
}

// cluster is n nodes of the binary on one database.
type cluster struct {
	killed []time.Time // when nodes were killed
	t      *testing.T
	bin    string
	url    string
	client *http.Client
	nodes  []*clusterNode
	hooks  *hookReceiver
	llm    *httptest.Server
}

type clusterNode struct {
	mu   sync.Mutex
	name string
	dir  string
	addr string
	cmd  *exec.Cmd
	log  *os.File
	up   atomic.Bool
}

func startCluster(t *testing.T, url string, n int) *cluster {
	work := t.TempDir()
	bin := filepath.Join(work, "garrison")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	c := &cluster{t: t, bin: bin, url: url, hooks: newHookReceiver(t)}
	// A language model that takes its time, so runs are under way when
	// nodes die.
	c.llm = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"Summary."}}]}`)
	}))
	t.Cleanup(c.llm.Close)
	hookCA := filepath.Join(work, "hooks-ca.pem")
	os.WriteFile(hookCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.hooks.srv.Certificate().Raw}), 0o600)
	if out, err := exec.Command(bin, "migrate", "--database", url).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	secret := bytes.Repeat([]byte("0123456789abcdef"), 4) // one signing secret for every node
	pool := x509.NewCertPool()
	for i := range n {
		node := &clusterNode{name: fmt.Sprintf("node-%d", i), dir: filepath.Join(work, fmt.Sprintf("node%d", i)), addr: freeAddr(t)}
		os.MkdirAll(node.dir, 0o700)
		if err := os.WriteFile(filepath.Join(node.dir, secretFileName), append(secret, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		var err error
		if node.log, err = os.Create(filepath.Join(work, node.name+".log")); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, node)
		c.start(node, hookCA)
		cert, err := os.ReadFile(filepath.Join(node.dir, "tls-cert.pem"))
		if err != nil {
			t.Fatal(err)
		}
		pool.AppendCertsFromPEM(cert)
	}
	c.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	c.allUp()
	t.Cleanup(func() {
		for _, node := range c.nodes {
			node.mu.Lock()
			if node.cmd != nil {
				node.cmd.Process.Kill()
				node.cmd.Wait()
			}
			node.mu.Unlock()
			node.log.Close()
		}
	})
	return c
}

// start runs node's server; hookCA is the webhook receiver's certificate.
func (c *cluster) start(node *clusterNode, hookCA string) {
	cmd := exec.Command(c.bin, "serve", "--database", c.url, "--data", node.dir, "--addr", node.addr, "--http-addr", "",
		"--node", node.name, "--limits", apitest.GenerousLimits, "--notify-ca-file", hookCA, "--notify-allow-loopback",
		"--llm-url", c.llm.URL+"/v1", "--llm-model", "slow", "--llm-timeout", "10s", "--agent-timeout", "1m")
	cmd.Stdout, cmd.Stderr = node.log, node.log
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	node.mu.Lock()
	node.cmd = cmd
	node.mu.Unlock()
	for range 300 {
		if _, err := os.Stat(filepath.Join(node.dir, "tls-cert.pem")); err == nil {
			if conn, err := net.Dial("tcp", node.addr); err == nil {
				conn.Close()
				node.up.Store(true)
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("%s did not start; its log:\n%s", node.name, c.logText(node))
}

// killRandomly SIGKILLs a random node and starts it again, times times,
// pausing between from and to; it returns the kills made.
func (c *cluster) killRandomly(times int, from, to time.Duration) int {
	hookCA := filepath.Join(filepath.Dir(c.bin), "hooks-ca.pem")
	for range times {
		time.Sleep(from + time.Duration(rand.Int64N(int64(to-from))))
		node := c.nodes[rand.IntN(len(c.nodes))]
		node.up.Store(false)
		node.mu.Lock()
		c.killed = append(c.killed, time.Now())
		node.cmd.Process.Kill() // SIGKILL: no shutdown, no lock given back by the node itself
		node.cmd.Wait()
		node.mu.Unlock()
		time.Sleep(from / 2)
		c.start(node, hookCA)
	}
	return times
}

// killWindow bounds the time between a receiver's answer and the sender
// recording it (one statement, apart from the cluster's write lock).
const killWindow = 250 * time.Millisecond

// killedWithin says whether a node was killed within d after at.
func (c *cluster) killedWithin(at time.Time, d time.Duration) bool {
	for _, k := range c.killed {
		if !k.Before(at) && k.Sub(at) <= d {
			return true
		}
	}
	return false
}

func (c *cluster) allUp() {
	for n := range c.nodes {
		deadline := time.Now().Add(30 * time.Second)
		for c.try(n, "GET", "/api/dashboard/health", "", nil).status != http.StatusOK {
			if time.Now().After(deadline) {
				c.t.Fatalf("%s is not healthy; its log:\n%s", c.nodes[n].name, c.logText(c.nodes[n]))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// admin makes an organization and its admin with the CLI on the cluster's
// database, and signs in through a node.
func (c *cluster) admin(email string) string {
	cmd := exec.Command(c.bin, "org", "create", "--database", c.url, "--name", "Cluster MSP", "--admin-email", email, "--password-stdin")
	cmd.Stdin = strings.NewReader("a long cluster passphrase\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("org create: %v\n%s", err, out)
	}
	r := c.try(1, "POST", "/api/auth/login", "", map[string]string{"email": email, "password": "a long cluster passphrase"})
	if r.status != http.StatusOK {
		c.t.Fatalf("login: %d %s", r.status, r.raw)
	}
	return r.body["token"].(string)
}

// workload writes through random live nodes until ctx ends, recording
// what they acknowledged.
func (c *cluster) workload(ctx context.Context, worker int, admin, writeKey string, acked *ackedWrites) {
	for i := 0; ctx.Err() == nil; i++ {
		n := c.liveNode()
		severity := "low"
		if i%9 == 0 {
			severity = "critical"
		}
		at := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		events := []map[string]any{}
		for k := range 5 {
			events = append(events, map[string]any{"type": "threat_detected", "severity": severity, "source": "ids",
				"asset": fmt.Sprintf("ws-%d", worker), "timestamp": at, "message": fmt.Sprintf("probe w%d i%d k%d", worker, i, k)})
		}
		if r := c.try(n, "POST", "/api/events", writeKey, map[string]any{"events": events}); r.status == http.StatusCreated {
			ids, _ := r.data()["ids"].([]any)
			acked.add(&acked.events, ids...)
		}
		switch i % 18 {
		case 1, 7, 13:
			if r := c.try(n, "POST", "/api/tickets/submit", admin, map[string]any{"subject": fmt.Sprintf("Printer w%d i%d", worker, i),
				"description": "The office printer prints blank pages since this morning.", "priority": "low"}); r.status == http.StatusCreated {
				acked.add(&acked.tickets, r.data()["id"])
			}
		case 2:
			agent, body := "msp-hunter", map[string]any{"vertical": "legal"}
			if worker%2 == 1 {
				agent, body = "onboarding", nil
			}
			if r := c.try(n, "POST", "/api/agents/"+agent+"/execute", admin, body); r.status == http.StatusAccepted {
				acked.addRun(agent, r.data()["agent_run_id"])
			}
		case 3:
			if r := c.try(n, "POST", "/api/compliance/audit", admin, map[string]any{"framework": "soc2"}); r.status == http.StatusAccepted {
				acked.addRun("compliance", r.data()["agent_run_id"])
			}
		case 4, 10, 16:
			if r := c.try(n, "POST", "/api/api-keys", admin, map[string]any{"name": fmt.Sprintf("k w%d i%d", worker, i), "scope": "read"}); r.status == http.StatusCreated {
				acked.add(&acked.keys, r.data()["id"])
			}
		}
	}
}

func (c *cluster) liveNode() int {
	for {
		n := rand.IntN(len(c.nodes))
		if c.nodes[n].up.Load() {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ackedWrites are the writes a node answered with success.
type ackedWrites struct {
	mu                    sync.Mutex
	events, tickets, keys []string
	runs                  []ackedRun
}

type ackedRun struct{ agent, id string }

func (a *ackedWrites) add(to *[]string, ids ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		if s, ok := id.(string); ok && s != "" {
			*to = append(*to, s)
		}
	}
}

func (a *ackedWrites) addRun(agent string, id any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := id.(string); ok && s != "" {
		a.runs = append(a.runs, ackedRun{agent, s})
	}
}

// clusterResponse is a node's answer, or status 0 when none came.
type clusterResponse struct {
	status int
	raw    string
	body   map[string]any
}

func (r clusterResponse) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

func (r clusterResponse) str(field string) string {
	s, _ := r.data()[field].(string)
	return s
}

// try sends one request to node n.
func (c *cluster) try(n int, method, path, token string, body any) clusterResponse {
	var in io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		in = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, "https://"+c.nodes[n].addr+path, in)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.client.Do(req)
	if err != nil {
		return clusterResponse{}
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := clusterResponse{status: res.StatusCode, raw: string(raw)}
	json.Unmarshal(raw, &out.body)
	return out
}

// do is try that must succeed.
func (c *cluster) do(n int, method, path, token string, body any) clusterResponse {
	c.t.Helper()
	r := c.try(n, method, path, token, body)
	if r.status < 200 || r.status > 299 {
		c.t.Fatalf("%s %s on %s: %d %s", method, path, c.nodes[n].name, r.status, r.raw)
	}
	return r
}

// logs are every node's JSON log lines, across restarts.
func (c *cluster) logs() []map[string]any {
	var lines []map[string]any
	for _, node := range c.nodes {
		f, err := os.Open(node.log.Name())
		if err != nil {
			c.t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				lines = append(lines, line)
			}
		}
		f.Close()
	}
	return lines
}

func (c *cluster) logText(node *clusterNode) string {
	b, _ := os.ReadFile(node.log.Name())
	return string(b)
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// hookReceiver is a webhook receiver that acknowledges every delivery and
// notes each webhook-id it acknowledged more than once.
type hookReceiver struct {
	srv   *httptest.Server
	URL   string
	mu    sync.Mutex
	seen  map[string]int
	first map[string]time.Time // when each webhook-id was first acknowledged
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{seen: map[string]int{}, first: map[string]time.Time{}}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		id := r.Header.Get("webhook-id")
		h.mu.Lock()
		if h.seen[id]++; h.seen[id] == 1 {
			h.first[id] = time.Now()
		}
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	h.URL = h.srv.URL
	t.Cleanup(h.srv.Close)
	return h
}

// duplicates are the webhook-ids acknowledged more than once, with when
// each was first.
func (h *hookReceiver) duplicates() map[string]time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	dup := map[string]time.Time{}
	for id, n := range h.seen {
		if n > 1 {
			dup[id] = h.first[id]
		}
	}
	return dup
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}
