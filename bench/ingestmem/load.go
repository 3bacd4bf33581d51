package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ingestCap is the server's ingest body cap (handlers.MaxIngestBodyBytes).
const ingestCap = 16 << 20

// hostileBody is {"events":[{},{},…]}: about 15.7 MiB of n empty objects,
// the cheapest body per entry a server that materialises entries can get.
func hostileBody(n int) []byte {
	b := make([]byte, 0, 13+3*n)
	b = append(b, `{"events":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "{}"...)
	}
	return append(b, "]}"...)
}

type benchEvent struct {
	Type      string          `json:"type"`
	Severity  string          `json:"severity"`
	Timestamp string          `json:"timestamp"`
	Source    string          `json:"source"`
	Asset     string          `json:"asset"`
	Message   string          `json:"message"`
	Indicator string          `json:"indicator"`
	Details   json.RawMessage `json:"details"`
}

// validBody is a batch of n valid events padded (in message) to just under
// size bytes. The first pass measures the unpadded batch; the second spreads
// the rest over the messages. A fixed seed makes both passes draw alike.
func validBody(n, size int, now time.Time) []byte {
	build := func(pad int) []byte {
		r := rand.New(rand.NewPCG(17, 42))
		types := []string{"threat_detected", "blocked_connection", "blocked_connection", "dns_anomaly", "policy_violation"}
		filler := strings.Repeat("Flow matched the egress policy and was kept for review. ", 1+pad/56)[:pad]
		var buf bytes.Buffer
		buf.WriteString(`{"events":[`)
		for i := range n {
			sev := "info"
			switch k := r.IntN(100); {
			case k < 3:
				sev = "high"
			case k < 10:
				sev = "medium"
			case k < 50:
				sev = "low"
			}
			host := r.IntN(200)
			ip := fmt.Sprintf("%d.%d.%d.%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), 1+r.IntN(254))
			e := benchEvent{
				Type: types[r.IntN(len(types))], Severity: sev, Source: "bench", Indicator: ip,
				Timestamp: now.Add(-time.Duration(r.IntN(3300)) * time.Second).UTC().Format(time.RFC3339),
				Asset:     "host-" + strconv.Itoa(host) + ".example.com",
				Message:   fmt.Sprintf("Connection from host-%d to %s:%d. %s", host, ip, 443, filler),
				Details:   json.RawMessage(fmt.Sprintf(`{"rule":"GAR-%04d","proto":"tcp","dst_port":443,"bytes":%d}`, r.IntN(10000), r.IntN(1<<20))),
			}
			if len(e.Message) > 4096 {
				panic("bench event message over 4096 bytes")
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			line, _ := json.Marshal(e) // plain ASCII, so the filler's length is its encoded length
			buf.Write(line)
		}
		buf.WriteString("]}")
		return buf.Bytes()
	}
	return build((size - len(build(0))) / n)
}

// outcome is how one request (after any retries) ended.
type outcome struct {
	status     int // 0: transport error
	code       string
	count      int // events stored, on 201
	retryAfter string
	err        error
	retries    int
	seconds    float64 // from the first send to the last answer
}

// fire sends n copies of body at once (one goroutine each, released
// together) and waits for every answer. With retry, a 503 is sent again
// after its Retry-After, for up to 5 minutes.
func fire(ctx context.Context, cl *http.Client, url, token string, body []byte, n int, retry bool) []outcome {
	out := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			began := time.Now()
			o := post(ctx, cl, url, token, body)
			for retry && o.status == http.StatusServiceUnavailable && time.Since(began) < 5*time.Minute {
				wait, err := strconv.Atoi(o.retryAfter)
				if err != nil || wait < 1 {
					wait = 1
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Duration(wait) * time.Second):
				}
				r := o.retries + 1
				o = post(ctx, cl, url, token, body)
				o.retries = r
			}
			o.seconds = time.Since(began).Seconds()
			out[i] = o
		})
	}
	close(start)
	wg.Wait()
	return out
}

func post(ctx context.Context, cl *http.Client, url, token string, body []byte) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := cl.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	o := outcome{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), err: err}
	var env struct {
		Code string `json:"code"`
		Data struct {
			Count int `json:"count"`
		} `json:"data"`
	}
	json.Unmarshal(raw, &env)
	o.code, o.count = env.Code, env.Data.Count
	return o
}
