package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/account"

	"garrison/handlers"
	"garrison/ratelimit"
	"garrison/store"
	"garrison/valid"
)

// config is everything `garrison serve` can be told.
type config struct {
	addr            string
	httpAddr        string
	dataDir         string
	database        string // a postgres:// URL; empty: the SQLite file in dataDir
	node            string // this node's name on health and /metrics
	tlsCert         string
	tlsKey          string
	baseURL         string
	jwtTTL          time.Duration
	sessionMax      time.Duration
	defaultPlan     string
	smtpAddr        string
	smtpFrom        string
	smtpUsername    string
	notifyCAFile    string
	notifyLoopback  bool
	silenceAfter    time.Duration
	syslogAddr      string // UDP and TCP syslog from devices ("" off)
	syslogTLSAddr   string // TCP syslog with TLS ("" off)
	syslogRoutes    string // the file routing each network to an API key
	smtpPassword    string // from GARRISON_SMTP_PASSWORD only: flags show in ps
	logLevel        string
	logFormat       string
	shutdownTimeout time.Duration
	demo            bool
	limits          map[string]ratelimit.Limit
	trustedProxies  []netip.Prefix
	agentWorkers    int
	agentTimeout    time.Duration
	llmURL          string
	llmModel        string
	llmAPIKey       string // from GARRISON_LLM_API_KEY only: flags show in ps
	llmTimeout      time.Duration
	ingestInflight  int64 // bytes
	intelImportOrgs []string
	registration    string
	tlsHosts        []string
	metricsAddr     string
	retention       time.Duration // events and DNS telemetry; 0 keeps them
	storageShare    float64       // of the disk one organization's events may take by default
	auditRetention  time.Duration
	intelSyncURLs   []string
	intelSyncEvery  time.Duration
	cpuProfile      string // a file the run's CPU profile is written to; empty: none
}

// envName is the environment variable of a flag: --jwt-ttl is GARRISON_JWT_TTL.
func envName(flagName string) string {
	return "GARRISON_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseFlags parses args, then fills every flag not given on the command
// line from its GARRISON_* variable: flags win over the environment.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		if v := getenv(envName(f.Name)); v != "" {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, e)
			}
		}
	})
	return err
}

// newFlagSet makes a flag set whose usage lists each flag with its variable.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s\n\n%s\n\nFlags (each also read from the environment variable shown; a flag wins):\n", name, synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			def := ""
			if f.DefValue != "" {
				def = fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(stderr, "  --%s  [%s]\n        %s%s\n", f.Name, envName(f.Name), f.Usage, def)
		})
	}
	return fs
}

const serveSynopsis = `Runs the Garrison API server: HTTPS on --addr, a redirect to it on --http-addr.
The data directory holds the SQLite database, the JWT signing secret and, unless
--tls-cert/--tls-key are given, a self-signed certificate made on first start.
Without --smtp-addr, mail (verification, reset, invites) is written to the log
and kept in the database's outbox table.`

func parseServeConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := newFlagSet("garrison serve [flags]", serveSynopsis, stderr)
	fs.StringVar(&c.addr, "addr", ":8443", "HTTPS listen address")
	fs.StringVar(&c.httpAddr, "http-addr", ":8080", "HTTP listen address that only redirects to HTTPS (empty: off)")
	fs.StringVar(&c.dataDir, "data", "./data", "data directory")
	fs.StringVar(&c.database, "database", "", "PostgreSQL URL (postgres://user@host/db?sslmode=verify-full) of a cluster's shared database, "+
		"PostgreSQL 15 or newer; empty: the SQLite file in --data (see \"Running a cluster\" in the README)")
	fs.StringVar(&c.node, "node", defaultNodeName(), "this node's name, shown by the health check and on every /metrics series")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "TLS certificate PEM file (with --tls-key); default: self-signed in the data directory")
	fs.StringVar(&c.tlsKey, "tls-key", "", "TLS private key PEM file")
	fs.StringVar(&c.baseURL, "base-url", "https://localhost:8443", "public URL of this server, used in links sent by mail")
	fs.DurationVar(&c.jwtTTL, "jwt-ttl", 24*time.Hour, "session token lifetime")
	fs.DurationVar(&c.sessionMax, "session-max", 30*24*time.Hour, "longest a session can be refreshed after the password was given")
	fs.StringVar(&c.defaultPlan, "default-plan", account.PlanStarter, "plan of new organizations: starter, pro or ultimate")
	fs.StringVar(&c.smtpAddr, "smtp-addr", "", "SMTP server host:port for outgoing mail (empty: log and outbox only)")
	fs.StringVar(&c.smtpFrom, "smtp-from", "garrison@localhost", "sender address of outgoing mail")
	fs.StringVar(&c.smtpUsername, "smtp-username", "", "SMTP AUTH user name (password in GARRISON_SMTP_PASSWORD)")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.logFormat, "log-format", "json", "log format: json or text")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long shutdown waits for in-flight requests")
	fs.BoolVar(&c.demo, "demo", false, "create the demo organization (once) and print its credentials before serving")
	fs.IntVar(&c.agentWorkers, "agent-workers", 2, "goroutines running agent runs at once")
	fs.DurationVar(&c.agentTimeout, "agent-timeout", 2*time.Minute, "longest one agent run may take before it is failed")
	fs.StringVar(&c.llmURL, "llm-url", "", "OpenAI-compatible API base of an on-prem model, e.g. http://127.0.0.1:11434/v1 "+
		"(empty: deterministic agent summaries only; key in GARRISON_LLM_API_KEY)")
	fs.StringVar(&c.llmModel, "llm-model", "", "model name to ask at --llm-url")
	fs.DurationVar(&c.llmTimeout, "llm-timeout", 30*time.Second, "how long one model answer may take before the deterministic text is used")
	inflight := fs.String("ingest-inflight", "64MiB", "most bytes of ingest bodies held at once; past it ingest answers 503 with Retry-After "+
		"(a size such as 64MiB, 1GiB or 500000)")
	limits := fs.String("limits", "", "rate-limit overrides, a comma list of name=N/window with names "+
		"auth, login, register, reset, jwt, apikey, agent-runs (for example jwt=1000/1m,login=20/1m)")
	tlsHosts := fs.String("tls-hosts", "", "comma list of extra host names and IP addresses the self-signed certificate covers "+
		"(made once, on first start; delete tls-cert.pem and tls-key.pem from --data to make it again)")
	retention := fs.String("retention", "90d", "how long events and DNS telemetry are kept (e.g. 90d, 2160h; 0 keeps them for good); "+
		"alerts, tickets, audits and leads are kept")
	auditRetention := fs.String("audit-retention", "365d", "how long the audit log is kept (0 keeps it for good)")
	fs.Float64Var(&c.storageShare, "storage-share", 0.5, "the share of the disk an organization's events may take by default: "+
		"of what it stores plus the disk's free space (0 < share <= 1; garrison org set-quota sets one organization's own)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "address of a plain-HTTP listener serving GET /metrics in the Prometheus text format, "+
		"e.g. 127.0.0.1:9464 (empty: off)")
	fs.StringVar(&c.registration, "registration", "open", "who may sign up with POST /api/auth/register: open, invite (with an invite_token only) "+
		"or closed (organizations are made with garrison org create)")
	importOrgs := fs.String("intel-import-orgs", "", "comma list of organization ids whose admins may import intelligence through "+
		"POST /api/intel/import (empty: the first organization created on this appliance)")
	syncURLs := fs.String("intel-sync-url", "", "comma list of URLs of intelligence files (NVD, CVE 5, KEV, EPSS, ATT&CK; gzip or not) "+
		"to pull on a schedule, for connected installs (empty: off)")
	fs.DurationVar(&c.intelSyncEvery, "intel-sync-interval", 6*time.Hour, "how often --intel-sync-url is fetched (conditional requests)")
	fs.StringVar(&c.cpuProfile, "cpu-profile", "", "file to write a CPU profile of the whole run to, emptied at start and complete when the server stops "+
		"(go tool pprof; empty: off)")
	fs.StringVar(&c.notifyCAFile, "notify-ca-file", "", "PEM file of extra certificate authorities trusted for webhook, chat and paging "+
		"receivers (an on-premises Mattermost with an internal CA; empty: the system's)")
	fs.BoolVar(&c.notifyLoopback, "notify-allow-loopback", false, "allow notification receivers on loopback addresses (127.0.0.0/8, ::1); "+
		"link-local addresses such as cloud metadata are always refused")
	fs.DurationVar(&c.silenceAfter, "silence-after", time.Hour, "the shortest silence of an event source that opens a sensor_silent alert "+
		"(a source is silent past three of its average gaps between events, and at least this long)")
	fs.StringVar(&c.syslogAddr, "syslog-addr", "", "UDP and TCP address receiving syslog straight from devices, e.g. :5514 "+
		"(RFC 5424 or 3164; TCP with octet counting or newline framing; needs --syslog-routes; empty: off)")
	fs.StringVar(&c.syslogTLSAddr, "syslog-tls-addr", "", "TCP address receiving syslog over TLS with the server's certificate, e.g. :6514 "+
		"(RFC 5425; needs --syslog-routes; empty: off)")
	fs.StringVar(&c.syslogRoutes, "syslog-routes", "", "file routing each device network to an organization: lines of "+
		"CIDR API_KEY [CLIENT_ORG_ID], the key of write scope; * is every other network; unrouted messages are dropped")
	proxies := fs.String("trusted-proxies", "", "comma list of proxy CIDRs or IPs whose X-Forwarded-For and X-Forwarded-Proto are believed")
	if err := parseFlags(fs, args, getenv); err != nil {
		return config{}, err
	}
	var err error
	if c.ingestInflight, err = parseSize(*inflight); err != nil {
		return config{}, fmt.Errorf("--ingest-inflight: %w", err)
	}
	if c.limits, err = ratelimit.ParseLimits(*limits); err != nil {
		return config{}, err
	}
	if c.trustedProxies, err = ratelimit.ParseTrustedProxies(*proxies); err != nil {
		return config{}, fmt.Errorf("--trusted-proxies: %w", err)
	}
	for _, id := range strings.Split(*importOrgs, ",") {
		if id = strings.TrimSpace(id); id != "" {
			c.intelImportOrgs = append(c.intelImportOrgs, id)
		}
	}
	if c.retention, err = parseDays(*retention); err != nil {
		return config{}, fmt.Errorf("--retention: %w", err)
	}
	if c.auditRetention, err = parseDays(*auditRetention); err != nil {
		return config{}, fmt.Errorf("--audit-retention: %w", err)
	}
	for _, h := range strings.Split(*tlsHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.tlsHosts = append(c.tlsHosts, h)
		}
	}
	for _, u := range strings.Split(*syncURLs, ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.intelSyncURLs = append(c.intelSyncURLs, u)
		}
	}
	c.smtpPassword = getenv("GARRISON_SMTP_PASSWORD")
	c.llmAPIKey = getenv("GARRISON_LLM_API_KEY")
	return c, c.validate()
}

func (c config) validate() error {
	var problems []string
	if c.jwtTTL <= 0 {
		problems = append(problems, "--jwt-ttl must be positive")
	}
	if c.sessionMax < c.jwtTTL {
		problems = append(problems, "--session-max must be at least --jwt-ttl")
	}
	if !slices.Contains(account.Plans, c.defaultPlan) {
		problems = append(problems, "--default-plan must be starter, pro or ultimate")
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		problems = append(problems, "--tls-cert and --tls-key go together")
	}
	if u, err := url.Parse(c.baseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		problems = append(problems, "--base-url must be an absolute http(s) URL")
	}
	if c.addr == "" {
		problems = append(problems, "--addr is required")
	}
	if c.database != "" && !store.IsPostgres(c.database) {
		problems = append(problems, "--database must be a postgres:// or postgresql:// URL (empty: the SQLite file in --data)")
	}
	if !validNodeName(c.node) {
		problems = append(problems, "--node must be 1 to 64 letters, digits, '.', '_' or '-'")
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.logLevel) {
		problems = append(problems, "--log-level must be debug, info, warn or error")
	}
	if c.logFormat != "json" && c.logFormat != "text" {
		problems = append(problems, "--log-format must be json or text")
	}
	if c.storageShare <= 0 || c.storageShare > 1 {
		problems = append(problems, "--storage-share must be above 0 and at most 1")
	}
	if c.shutdownTimeout <= 0 {
		problems = append(problems, "--shutdown-timeout must be positive")
	}
	for _, s := range c.intelSyncURLs {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, "--intel-sync-url must list absolute http(s) URLs")
			break
		}
	}
	for _, h := range c.tlsHosts {
		if net.ParseIP(h) == nil && !validDNSName(h) {
			problems = append(problems, fmt.Sprintf("--tls-hosts: %q is neither an IP address nor a host name", h))
		}
	}
	if !slices.Contains(account.RegistrationModes, c.registration) {
		problems = append(problems, "--registration must be open, invite or closed")
	}
	if c.intelSyncEvery < time.Minute {
		problems = append(problems, "--intel-sync-interval must be at least 1m")
	}
	if c.agentWorkers < 1 || c.agentWorkers > 16 {
		problems = append(problems, "--agent-workers must be from 1 to 16")
	}
	if c.ingestInflight < handlers.MaxIngestBodyBytes {
		problems = append(problems, "--ingest-inflight must be at least 16MiB, the size of one ingest body")
	}
	if c.agentTimeout <= 0 || c.llmTimeout <= 0 {
		problems = append(problems, "--agent-timeout and --llm-timeout must be positive")
	}
	if c.llmURL != "" {
		if u, err := url.Parse(c.llmURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, "--llm-url must be an absolute http(s) URL")
		}
		if c.llmModel == "" {
			problems = append(problems, "--llm-model is required with --llm-url")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// parseSize reads a byte count: a whole number with an optional KiB, MiB or
// GiB suffix.
func parseSize(v string) (int64, error) {
	units := []struct {
		suffix string
		factor int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	factor := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, factor = n, u.factor
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > (1<<62)/factor {
		return 0, fmt.Errorf("%q is not a size such as 64MiB", v)
	}
	return n * factor, nil
}

// validDNSName is a name a certificate may carry: a valid.DomainName
// without the underscore event data may hold but certificate names may
// not (RFC 5280's preferred syntax), nor a label that starts or ends with
// '-'; a leading "*." makes it a wildcard.
func validDNSName(h string) bool {
	h = strings.TrimPrefix(h, "*.")
	if !valid.DomainName(h) || strings.Contains(h, "_") {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
	}
	return true
}

// parseDays reads a retention: whole days ("90d"), a Go duration ("2160h")
// or 0 (keep for good); at least a day otherwise.
func parseDays(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "0" || v == "" {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, fmt.Errorf("%q is not a number of days", v)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q is neither a number of days (90d) nor a duration (2160h)", v)
		}
	}
	if d < 24*time.Hour {
		return 0, fmt.Errorf("%q is less than a day", v)
	}
	return d, nil
}

// defaultNodeName is the host's name, which tells a cluster's nodes apart
// when each runs on its own machine.
func defaultNodeName() string {
	name, err := os.Hostname()
	if err != nil || !validNodeName(name) {
		return "garrison"
	}
	return name
}

// validNodeName is a name safe in a Prometheus label and a log line.
func validNodeName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
