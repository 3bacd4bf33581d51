package handlers_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"garrison/demo"
)

// TestDemoTellsAConsistentStory: a fresh demo's numbers agree with each
// other. Every host an event names is in the inventory; each indicator
// hits a few assets, as a real detection does; the top blocked domains add
// up to no more than the blocked total of their period; and one figure
// read from two pages is the same.
func TestDemoTellsAConsistentStory(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	if err := demo.Create(context.Background(), e.Store, e.Clock.Now(), &out); err != nil {
		t.Fatal(err)
	}
	password := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out.String())[1]
	token := e.Login(demo.Email, password).Must(t, http.StatusOK).Str("token")

	inventory := map[string]bool{}
	for _, a := range e.Do("GET", "/api/assets?limit=200", token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		inventory[a.Get("hostname").MustStr(t)] = true
	}
	hosts := map[string]int{}
	total := 0
	for offset := 0; ; offset += 200 {
		page := e.Do("GET", "/api/events?limit=200&offset="+strconv.Itoa(offset), token, nil).Must(t, http.StatusOK)
		list := page.Get("data").MustList(t)
		for _, ev := range list {
			hosts[ev.Get("asset").MustStr(t)]++
		}
		total += len(list)
		if len(list) < 200 {
			break
		}
	}
	if total < 30*150 {
		t.Fatalf("%d demo events", total)
	}
	for h, n := range hosts {
		if !inventory[h] {
			t.Errorf("%d events name %s, which is not in the inventory", n, h)
		}
	}

	for _, th := range e.Do("GET", "/api/threats?limit=200", token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		assets := th.Get("affected_assets").Strings()
		if len(assets) == 0 || len(assets) > 6 {
			t.Errorf("indicator %q hits %d assets: %v", th.Get("indicator").Str(), len(assets), assets)
		}
		for _, a := range assets {
			if !inventory[a] {
				t.Errorf("indicator %q hits %s, not in the inventory", th.Get("indicator").Str(), a)
			}
		}
	}

	nh := e.Do("GET", "/api/dashboard/network-health", token, nil).Must(t, http.StatusOK).Get("data")
	var prev float64
	for _, win := range []string{"24h", "7d", "retained"} {
		s := nh.Get("dns", win)
		byCategory := 0.0
		for _, n := range s.Get("blocked_by_category").Map() {
			byCategory += n.Float()
		}
		if s.Get("blocked").Float() != byCategory || s.Get("blocked").Float() > s.Get("queries").Float() || s.Get("queries").Float() < prev {
			t.Errorf("DNS %s: %s (the previous, shorter window had %v queries)", win, s, prev)
		}
		prev = s.Get("queries").Float()
	}
	top := 0.0
	for _, d := range nh.Get("top_blocked_domains").MustList(t) {
		top += d.Get("queries").Float()
	}
	if blocked := nh.Get("dns", "retained", "blocked").Float(); top == 0 || top > blocked {
		t.Errorf("the top blocked domains add up to %v queries, the retained period blocked %v", top, blocked)
	}
	for _, d := range nh.Get("top_blocked_domains").MustList(t) {
		if d.Get("queries").Float() > nh.Get("dns", "retained", "blocked_by_category", d.Get("category").MustStr(t)).Float() {
			t.Errorf("%s alone has more queries than its category: %s", d.Get("domain").Str(), d)
		}
	}

	openAlerts := e.Do("GET", "/api/alerts?status=open&limit=1", token, nil).Must(t, http.StatusOK).Get("pagination", "total").Float()
	stats := e.Do("GET", "/api/dashboard/stats", token, nil).Must(t, http.StatusOK).Get("data")
	overview := e.Do("GET", "/api/dashboard/overview", token, nil).Must(t, http.StatusOK).Get("data")
	if stats.Get("open_alerts").Float() != openAlerts || overview.Get("open_alerts").Float() != openAlerts || openAlerts == 0 {
		t.Errorf("open alerts: list %v, stats %s, overview %s", openAlerts, stats.Get("open_alerts"), overview.Get("open_alerts"))
	}
	for _, win := range []string{"24h", "7d"} {
		c := overview.Get("events", win)
		sev, typ := 0.0, 0.0
		for _, n := range c.Get("by_severity").Map() {
			sev += n.Float()
		}
		for _, n := range c.Get("by_type").Map() {
			typ += n.Float()
		}
		if c.Get("total").Float() != sev || c.Get("total").Float() != typ {
			t.Errorf("overview events %s: total %v, by severity %v, by type %v", win, c.Get("total"), sev, typ)
		}
	}
	if overview.Get("events", "24h", "total").Float() > overview.Get("events", "7d", "total").Float() {
		t.Errorf("more events in 24 hours than in 7 days: %s", overview.Get("events"))
	}
}
