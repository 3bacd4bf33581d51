package handlers_test

import (
	"encoding/json"
	"testing"

	"garrison/handlers/apitest"
)

// env is the API under test; the resource test files add their helpers to it.
type env struct{ *apitest.Env }

func newEnv(t testing.TB, opts ...apitest.Option) *env { return &env{apitest.New(t, opts...)} }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
