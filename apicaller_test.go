package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// apiCaller calls a live server's API (apiBase ends in /api) with a JSON
// body and a bearer credential, failing the test on anything but a
// success, and returns the decoded answer.
func apiCaller(t *testing.T, client *http.Client, apiBase string) func(method, path, cred string, body any) map[string]any {
	return func(method, path, cred string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, apiBase+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		if cred != "" {
			req.Header.Set("Authorization", "Bearer "+cred)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil || res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, out)
		}
		return m
	}
}
