// Package llm is a small client for an OpenAI-compatible chat completions
// endpoint, the protocol served on-prem by Ollama, vLLM and the llama.cpp
// server. Garrison's agents use it only to phrase facts they already hold as
// prose (see Narrate); nothing it returns is treated as a fact.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"garrison/valid"
)

const (
	completionsPath = "/chat/completions"
	defaultTimeout  = 30 * time.Second
	maxResponse     = 1 << 20 // a paragraph of prose never needs more
	maxErrorMessage = 200     // bytes of a server's error message kept in ours
)

// Config says where the model is.
type Config struct {
	URL     string        // API base, e.g. "http://127.0.0.1:11434/v1"
	Model   string        // model name as the server knows it
	APIKey  string        // sent as "Authorization: Bearer <key>" when non-empty
	Timeout time.Duration // per request; 0 means 30s
	// HTTP is the client requests go through (nil: a private one with no
	// global timeout, since each request gets Timeout through its context).
	HTTP *http.Client
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Client talks to one model. It is safe for concurrent use.
type Client struct {
	endpoint string
	model    string
	apiKey   string
	timeout  time.Duration
	hc       *http.Client
}

// New returns nil when cfg.URL is empty, meaning no model is configured, so
// callers can keep a nil *Client and fall back to their own wording.
func New(cfg Config) *Client {
	hc := cfg.HTTP
	base := strings.TrimRight(strings.TrimSpace(cfg.URL), "/")
	if base == "" {
		return nil
	}
	if !strings.HasSuffix(base, completionsPath) {
		base += completionsPath
	}
	if hc == nil {
		hc = &http.Client{}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	return &Client{endpoint: base, model: cfg.Model, apiKey: cfg.APIKey, timeout: timeout, hc: hc}
}

// Model returns the configured model name, "" for a nil Client.
func (c *Client) Model() string {
	if c == nil {
		return ""
	}
	return c.model
}

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Not omitempty: 0 must be sent, servers default to something warmer.
	Temperature float64 `json:"temperature"`
	Stream      bool    `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"` // null when the model only called tools
		} `json:"message"`
	} `json:"choices"`
}

// Complete sends the messages and returns choices[0].message.content, trimmed.
func (c *Client) Complete(ctx context.Context, messages []Message) (string, error) {
	if c == nil {
		return "", errors.New("llm: no model configured")
	}
	if len(messages) == 0 {
		return "", errors.New("llm: no messages to send")
	}
	body, err := json.Marshal(chatRequest{Model: c.model, Messages: messages, Temperature: 0, Stream: false})
	if err != nil {
		return "", fmt.Errorf("llm: encoding request: %w", err)
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("llm: building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("llm: calling %s: %w", c.model, withCtxErr(ctx, err))
	}
	defer resp.Body.Close()
	// Read one byte past the limit so an oversize body is told apart from
	// one of exactly the limit.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return "", fmt.Errorf("llm: reading response from %s: %w", c.model, withCtxErr(ctx, err))
	}
	if len(raw) > maxResponse {
		return "", fmt.Errorf("llm: response from %s is larger than %d bytes", c.model, maxResponse)
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if msg := c.serverMessage(raw); msg != "" {
			return "", fmt.Errorf("llm: %s answered %s: %q", c.model, resp.Status, msg)
		}
		return "", fmt.Errorf("llm: %s answered %s", c.model, resp.Status)
	}

	var out chatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("llm: malformed response from %s: %w", c.model, err)
	}
	if len(out.Choices) == 0 {
		// Some servers answer 200 with an error body; say what it was.
		if msg := c.serverMessage(raw); msg != "" {
			return "", fmt.Errorf("llm: response from %s has no choices: %q", c.model, msg)
		}
		return "", fmt.Errorf("llm: response from %s has no choices", c.model)
	}
	var content string
	if p := out.Choices[0].Message.Content; p != nil {
		content = strings.TrimSpace(*p)
	}
	if content == "" {
		return "", fmt.Errorf("llm: response from %s has empty content", c.model)
	}
	return content, nil
}

// withCtxErr makes sure a failure caused by our deadline or the caller's
// cancellation satisfies errors.Is with the context's error, whatever the
// transport chose to wrap.
func withCtxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// serverMessage digs the message out of an error body: OpenAI's
// {"error":{"message":...}}, plus the {"error":"..."} and
// {"message":...} shapes some local servers use. The result is redacted of
// the API key (servers do echo it) and cut to maxErrorMessage bytes.
func (c *Client) serverMessage(raw []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(raw, &shape) != nil {
		return ""
	}
	msg := shape.Message
	var obj struct {
		Message string `json:"message"`
	}
	var str string
	switch {
	case json.Unmarshal(shape.Error, &obj) == nil && obj.Message != "":
		msg = obj.Message
	case json.Unmarshal(shape.Error, &str) == nil && str != "":
		msg = str
	}
	if c.apiKey != "" {
		msg = strings.ReplaceAll(msg, c.apiKey, "[redacted]")
	}
	return valid.Clip(strings.TrimSpace(msg), maxErrorMessage)
}
