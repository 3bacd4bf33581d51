package alerting

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/event"
)

// The failed-then-successful sign-in rule: LogonFailures failed sign-ins
// for one account, or from one address, within LogonWindow, then a
// successful one for it: a guessed password, most often.
const (
	LogonFailures = 5
	LogonWindow   = 10 * time.Minute
)

// Sign-in outcomes, as the normalised field action says them.
const (
	LogonSuccess = "success"
	LogonFailure = "failure"
)

// maxFailuresKept bounds the failures remembered per key.
const maxFailuresKept = 4 * LogonFailures

// logonKey is what a sign-in counts against: its account (lower case) or
// its source address, one of the two.
type logonKey struct {
	user string
	ip   netip.Addr
}

// logonKeys are a sign-in's keys: its account and its source address.
func logonKeys(e Event) (keys [2]logonKey, n int) {
	if e.User != "" {
		keys[n], n = logonKey{user: lowerASCII(e.User)}, n+1
	}
	// A loopback or unspecified source is every local sign-in of every
	// host: no one address to count against.
	if e.SrcIP.IsValid() && !e.SrcIP.IsLoopback() && !e.SrcIP.IsUnspecified() {
		keys[n], n = logonKey{ip: e.SrcIP}, n+1
	}
	return keys, n
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// Logons remembers recent failed sign-ins per account and per address
// (at most LogonFailures each, within LogonWindow), for one organization.
// Changes are staged until Commit, so that a batch whose transaction fails
// leaves no trace. Not safe for concurrent use.
type Logons struct {
	failures map[logonKey][]int64 // key → failure times (ms), oldest first
	staged   map[logonKey][]int64
	limit    int
}

// NewLogons remembers at most limit keys: past it the oldest are dropped
// (a sequence spanning the drop, like one spanning a restart, is missed).
func NewLogons(limit int) *Logons {
	return &Logons{failures: map[logonKey][]int64{}, limit: limit}
}

func (l *Logons) get(key logonKey) []int64 {
	if s, ok := l.staged[key]; ok {
		return s
	}
	return l.failures[key]
}

// Observe takes a sign-in of the batch, in order, and returns the alert a
// success completing a sequence raises.
func (l *Logons) Observe(e Event) (Spec, bool) {
	if e.Action != LogonFailure && e.Action != LogonSuccess {
		return Spec{}, false
	}
	if l.staged == nil {
		l.staged = map[logonKey][]int64{}
	}
	at := e.Time.UnixMilli()
	from := at - LogonWindow.Milliseconds()
	keys, n := logonKeys(e)
	for _, key := range keys[:n] {
		recent := l.get(key)
		if e.Action == LogonFailure {
			// Sign-ins may arrive out of order across bodies: keep what is
			// in the window of this one or later, sorted. Pruning by the
			// event's own time, not the newest seen, lets no record with a
			// wrong clock push the others out.
			kept := make([]int64, 0, len(recent)+1)
			for _, t := range recent {
				if t >= from {
					kept = append(kept, t)
				}
			}
			kept = append(kept, at)
			slices.Sort(kept)
			if len(kept) > maxFailuresKept {
				kept = kept[len(kept)-maxFailuresKept:]
			}
			l.staged[key] = kept
			continue
		}
		count := 0
		for _, t := range recent {
			if t >= from && t <= at {
				count++
			}
		}
		if count >= LogonFailures {
			for _, k := range keys[:n] { // the sequence is spent, by account and address alike
				l.staged[k] = nil
			}
			return sequenceSpec(e, key, count), true
		}
	}
	return Spec{}, false
}

// Commit keeps what was observed since the last Commit; Rollback forgets it.
func (l *Logons) Commit() {
	for k, v := range l.staged {
		if len(v) == 0 {
			delete(l.failures, k)
			continue
		}
		l.failures[k] = v
	}
	l.staged = nil
	if len(l.failures) > l.limit {
		l.dropOldest()
	}
}

// Rollback forgets what was observed since the last Commit.
func (l *Logons) Rollback() { l.staged = nil }

// dropOldest drops the keys whose newest failure is the oldest, until
// half the limit is left.
func (l *Logons) dropOldest() {
	newest := make([]int64, 0, len(l.failures))
	for _, v := range l.failures {
		newest = append(newest, v[len(v)-1])
	}
	slices.Sort(newest)
	cut := newest[len(newest)-l.limit/2]
	for k, v := range l.failures {
		if v[len(v)-1] < cut {
			delete(l.failures, k)
		}
	}
	for k := range l.failures {
		if len(l.failures) <= l.limit/2 {
			break
		}
		delete(l.failures, k)
	}
}

func sequenceSpec(e Event, key logonKey, failures int) Spec {
	who, what, kind := key.user, "account "+key.user, "user:"
	if key.ip.IsValid() {
		who, kind = key.ip.String(), "ip:"
		what = "address " + who
	}
	title := "Successful sign-in after " + strconv.Itoa(failures) + " failed ones for " + what
	if e.User != "" && key.ip.IsValid() {
		title += " (account " + e.User + ")"
	}
	return Spec{
		Fingerprint: fingerprint("sequence", kind+who, e.Asset),
		Severity:    event.High,
		Category:    event.CategoryIntrusion,
		Title:       oneLine(title+" on "+e.Asset, 200),
		Asset:       e.Asset,
		Indicator:   who,
		RecommendedAction: "Confirm with the owner of the " + what + " that the sign-in on " + e.Asset + " was theirs. " +
			"If not, disable the account and reset its password, end its sessions, and block the source address; " +
			"then review what the account did after signing in.",
	}
}
