package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers"
)

// Every route refuses a query parameter it does not take, naming it,
// before doing anything: a filter it does not know is never taken for one
// it applied.
func TestUnknownQueryParameterRefusedEverywhere(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "admin")
	for _, rt := range e.API.Routes() {
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			path := strings.NewReplacer("{id}", "x", "{source}", "native", "{control_id}", "x", "{framework}", "soc2", "{run_id}", "x").Replace(rt.Path)
			cred := admin.Token
			if rt.Access == handlers.Webhook || rt.Access == handlers.Read || rt.Access == handlers.Write {
				cred = key
			}
			if rt.Access == handlers.Public {
				cred = ""
			}
			r := e.Do(rt.Method, path+"?zz_filter=1", cred, nil)
			if r.Status == http.StatusTooManyRequests {
				return // a sign-in route's bucket: checked before the query, by design
			}
			r.WantFields(t, "zz_filter")
			if !strings.Contains(string(r.Raw), "is not a query parameter of "+rt.Method+" "+rt.Path) {
				t.Errorf("answer %s", r.Raw)
			}
		})
	}
}
