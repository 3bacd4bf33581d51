package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"garrison/event"
	"garrison/handlers/apitest"
	"garrison/store"
)

// go test -run XXX -bench ProfileReads -benchtime 3000x ./handlers -cpuprofile /tmp/cpu.out
func BenchmarkProfileReads(b *testing.B) {
	dir := "/tmp/seed1m"
	_, statErr := os.Stat(dir + "/garrison.db")
	os.MkdirAll(dir, 0o700)
	e := newEnv(b, func(c *apitest.Config) { c.DataDir = dir; c.LogLevel = slog.LevelWarn })
	var admin apitest.Account
	if statErr != nil {
		admin = e.Register("ann@acme.test", "Acme")
		ctx := context.Background()
		const total, batch = 1_000_000, 5000
		for i := 0; i < total/batch; i++ {
			var evs []store.NewEvent
			end := e.Clock.Now().Add(-30 * 24 * time.Hour).Add(time.Duration(i+1) * 30 * 24 * time.Hour / (total / batch))
			for _, m := range benchEvents(batch, end, 30*24*time.Hour/(total/batch), uint64(i)) {
				ts, _ := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
				details, _ := json.Marshal(m["details"])
				sev, _ := event.ParseSeverity(m["severity"].(string))
				evs = append(evs, store.NewEvent{Type: m["type"].(string), Severity: sev, Timestamp: ts, Source: m["source"].(string),
					Asset: m["asset"].(string), Message: m["message"].(string), Indicator: m["indicator"].(string), Details: details})
			}
			if _, err := e.Store.Ingest(ctx, admin.OrgID, evs, nil); err != nil {
				b.Fatal(err)
			}
		}
		e.Store.Fold(ctx)
	} else {
		r := e.Login("ann@acme.test", apitest.Password)
		admin = apitest.Account{Token: r.Str("token")}
	}
	e.UseLimits("jwt=100000000/1m,apikey=100000000/1m", nil)
	key := e.APIKey(admin, "read")
	if os.Getenv("PROFILE_JWT") != "" {
		key = admin.Token
	}
	path := os.Getenv("PROFILE_PATH")
	if path == "" {
		path = "/api/events?limit=50"
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", e.Server.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := e.Server.Client().Do(req)
			if err != nil || res.StatusCode != http.StatusOK {
				b.Fatal(err, res.Status)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
}
