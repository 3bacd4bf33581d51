-- Garrison schema. Each "-- migration: N" section is applied once, in order,
-- inside its own transaction; PRAGMA user_version records the last one applied.
-- Timestamps are INTEGER unix milliseconds (UTC); identifiers are prefixed,
-- time-sortable strings so new rows append at the end of each B-tree.

-- migration: 1
CREATE TABLE orgs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL CHECK (plan IN ('starter', 'pro', 'ultimate')),
    created_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email             TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL,
    role              TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    password_hash     TEXT NOT NULL,
    token_version     INTEGER NOT NULL DEFAULT 0,
    email_verified_at INTEGER,
    created_at        INTEGER NOT NULL
) STRICT;
CREATE INDEX users_org ON users (org_id, role);

CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    scope         TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    hash          BLOB NOT NULL UNIQUE,
    prefix        TEXT NOT NULL,
    created_by    TEXT REFERENCES users(id) ON DELETE SET NULL,
    expires_at    INTEGER,
    revoked_at    INTEGER,
    last_used_at  INTEGER,
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

-- Logged-out session tokens, kept until they would have expired anyway.
CREATE TABLE revoked_tokens (
    jti         TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

-- Password-reset and e-mail verification tokens; only their SHA-256 is kept.
CREATE TABLE user_tokens (
    hash        BLOB PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('reset', 'verify')),
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER,
    created_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX user_tokens_user ON user_tokens (user_id, purpose);

CREATE TABLE invites (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email        TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    token_hash   BLOB NOT NULL UNIQUE,
    invited_by   TEXT REFERENCES users(id) ON DELETE SET NULL,
    expires_at   INTEGER NOT NULL,
    accepted_at  INTEGER,
    created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX invites_org ON invites (org_id, created_at);

-- Every mail the server sends is written here first, in the transaction that
-- caused it, so a crash between commit and delivery loses nothing.
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY,
    to_addr     TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  INTEGER NOT NULL,
    sent_at     INTEGER
) STRICT;
CREATE INDEX outbox_pending ON outbox (status, id);

-- migration: 2
-- Password-reset requests are queued and answered at once; a worker makes
-- the token and mail. Known and unknown addresses then cost the caller the
-- same one insert, so timing tells nothing, and a crash loses no request.
CREATE TABLE reset_requests (
    id          INTEGER PRIMARY KEY,
    email       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

-- migration: 3
-- Security events. Severity is stored as 0 (info) to 4 (critical) so it
-- sorts; ts is the event's own time. Dashboard numbers come from the
-- rollups below, never from scans (kept in the ingest transaction until
-- migration 5 moved them behind ingest, into the fold).
CREATE TABLE events (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    ts           INTEGER NOT NULL,
    type         TEXT NOT NULL,
    severity     INTEGER NOT NULL CHECK (severity BETWEEN 0 AND 4),
    source       TEXT NOT NULL,
    asset        TEXT NOT NULL,
    message      TEXT NOT NULL,
    indicator    TEXT NOT NULL DEFAULT '',
    details      TEXT,
    alert_id     TEXT,
    received_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX events_org_ts ON events (org_id, ts);
CREATE INDEX events_org_severity_ts ON events (org_id, severity, ts);
CREATE INDEX events_alert ON events (alert_id) WHERE alert_id IS NOT NULL;
-- An asset's recent events: burst windows, and per-asset investigation.
CREATE INDEX events_org_asset_ts ON events (org_id, asset, ts);

-- Event counts per organization, hour, type and severity.
CREATE TABLE event_rollup (
    org_id    TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    type      TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, hour, type, severity)
) STRICT, WITHOUT ROWID;

-- Events per asset and day, for top assets and affected assets.
CREATE TABLE asset_rollup (
    org_id        TEXT NOT NULL,
    day           INTEGER NOT NULL,
    asset         TEXT NOT NULL,
    n             INTEGER NOT NULL,
    max_severity  INTEGER NOT NULL,
    PRIMARY KEY (org_id, day, asset)
) STRICT, WITHOUT ROWID;

-- Lower-severity events per asset, type and ten-minute window: the burst rule.
CREATE TABLE burst_windows (
    org_id   TEXT NOT NULL,
    asset    TEXT NOT NULL,
    type     TEXT NOT NULL,
    window   INTEGER NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (org_id, asset, type, window)
) STRICT, WITHOUT ROWID;

-- Threat data grouped by indicator (signature, domain, IP, hash).
CREATE TABLE threat_indicators (
    org_id        TEXT NOT NULL,
    indicator     TEXT NOT NULL,
    type          TEXT NOT NULL,
    max_severity  INTEGER NOT NULL,
    n             INTEGER NOT NULL,
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    PRIMARY KEY (org_id, indicator)
) STRICT, WITHOUT ROWID;
CREATE INDEX threat_indicators_recent ON threat_indicators (org_id, last_seen);

CREATE TABLE threat_assets (
    org_id     TEXT NOT NULL,
    indicator  TEXT NOT NULL,
    asset      TEXT NOT NULL,
    PRIMARY KEY (org_id, indicator, asset)
) STRICT, WITHOUT ROWID;

-- Which sources report events or DNS telemetry, and when each last did.
CREATE TABLE event_sources (
    org_id     TEXT NOT NULL,
    source     TEXT NOT NULL,
    n          INTEGER NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (org_id, source)
) STRICT, WITHOUT ROWID;

CREATE TABLE alerts (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    fingerprint         TEXT NOT NULL,
    severity            INTEGER NOT NULL,
    category            TEXT NOT NULL,
    title               TEXT NOT NULL,
    asset               TEXT NOT NULL,
    indicator           TEXT NOT NULL DEFAULT '',
    recommended_action  TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    event_count         INTEGER NOT NULL,
    first_seen          INTEGER NOT NULL,
    last_seen           INTEGER NOT NULL,
    note                TEXT NOT NULL DEFAULT '',
    resolved_at         INTEGER,
    resolved_by         TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
) STRICT;
-- One open alert per fingerprint: repeats are counted into it.
CREATE UNIQUE INDEX alerts_open_fingerprint ON alerts (org_id, fingerprint) WHERE status = 'open';
CREATE INDEX alerts_org_status ON alerts (org_id, status, last_seen);
CREATE INDEX alerts_org_recent ON alerts (org_id, last_seen);
CREATE INDEX alerts_org_created ON alerts (org_id, created_at);
CREATE INDEX alerts_org_resolved ON alerts (org_id, resolved_at) WHERE resolved_at IS NOT NULL;

-- Alerts per organization, status and severity, kept by triggers so every
-- write path counts and the dashboard never counts rows.
CREATE TABLE alert_counts (
    org_id    TEXT NOT NULL,
    status    TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, status, severity)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER alerts_counted_insert AFTER INSERT ON alerts BEGIN
    INSERT INTO alert_counts (org_id, status, severity, n) VALUES (NEW.org_id, NEW.status, NEW.severity, 1)
        ON CONFLICT (org_id, status, severity) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER alerts_counted_update AFTER UPDATE OF status, severity ON alerts
WHEN OLD.status != NEW.status OR OLD.severity != NEW.severity BEGIN
    UPDATE alert_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status AND severity = OLD.severity;
    INSERT INTO alert_counts (org_id, status, severity, n) VALUES (NEW.org_id, NEW.status, NEW.severity, 1)
        ON CONFLICT (org_id, status, severity) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER alerts_counted_delete AFTER DELETE ON alerts BEGIN
    UPDATE alert_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status AND severity = OLD.severity;
END;

-- Every status change of an alert: who, when, and the note given.
CREATE TABLE alert_history (
    id          INTEGER PRIMARY KEY,
    alert_id    TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    note        TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX alert_history_alert ON alert_history (alert_id, id);

-- DNS telemetry, kept apart from the events feed.
CREATE TABLE dns_queries (
    id        INTEGER PRIMARY KEY,
    org_id    TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    ts        INTEGER NOT NULL,
    source    TEXT NOT NULL,
    client    TEXT NOT NULL,
    domain    TEXT NOT NULL,
    qtype     TEXT NOT NULL,
    rcode     TEXT NOT NULL,
    category  TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX dns_queries_org_ts ON dns_queries (org_id, ts);

-- DNS queries per organization, hour and blocklist category ('' = allowed).
CREATE TABLE dns_rollup (
    org_id    TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    category  TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, hour, category)
) STRICT, WITHOUT ROWID;

CREATE TABLE dns_blocked_domains (
    org_id     TEXT NOT NULL,
    domain     TEXT NOT NULL,
    category   TEXT NOT NULL,
    n          INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (org_id, domain)
) STRICT, WITHOUT ROWID;

-- migration: 4
-- Agent runs. A run is a row before the API answers 202, so an accepted
-- run survives a restart; seq is the queue order.
CREATE TABLE agent_runs (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    agent           TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
    params          TEXT NOT NULL,
    requested_by    TEXT NOT NULL,
    recoveries      INTEGER NOT NULL DEFAULT 0,
    queued_at       INTEGER NOT NULL,
    started_at      INTEGER,
    finished_at     INTEGER,
    duration_ms     INTEGER,
    output          TEXT,
    output_summary  TEXT NOT NULL DEFAULT '',
    error           TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX agent_runs_queued ON agent_runs (seq) WHERE status = 'queued';
CREATE INDEX agent_runs_running ON agent_runs (seq) WHERE status = 'running';
CREATE INDEX agent_runs_org_agent ON agent_runs (org_id, agent, seq);
CREATE INDEX agent_runs_org_status ON agent_runs (org_id, status, agent);
CREATE INDEX agent_runs_durations ON agent_runs (agent, finished_at) WHERE status = 'completed';

-- Support tickets. triage and resolution_steps are JSON written by the
-- tech-support agent; NULL until it has run.
CREATE TABLE tickets (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    created_by        TEXT NOT NULL,
    subject           TEXT NOT NULL,
    description       TEXT NOT NULL,
    priority          TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high')),
    status            TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'escalated', 'resolved', 'closed')),
    assignee          TEXT,
    triage            TEXT,
    resolution_steps  TEXT,
    triage_run_id     TEXT,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    resolved_at       INTEGER
) STRICT;
CREATE INDEX tickets_org_created ON tickets (org_id, created_at);
CREATE INDEX tickets_org_status ON tickets (org_id, status, created_at);
-- Tickets still waiting for their triage: what a failed triage run escalates.
CREATE INDEX tickets_untriaged ON tickets (triage_run_id) WHERE triage IS NULL AND status = 'open';

-- The conversation of a ticket: its submitter, staff and the agent.
CREATE TABLE ticket_messages (
    id          INTEGER PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    author      TEXT NOT NULL,
    author_kind TEXT NOT NULL CHECK (author_kind IN ('user', 'apikey', 'agent')),
    body        TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX ticket_messages_ticket ON ticket_messages (ticket_id, id);

-- Every change of a ticket's status, priority or assignee.
CREATE TABLE ticket_history (
    id         INTEGER PRIMARY KEY,
    ticket_id  TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    field      TEXT NOT NULL,
    old_value  TEXT,
    new_value  TEXT,
    actor      TEXT NOT NULL,
    note       TEXT NOT NULL DEFAULT '',
    at         INTEGER NOT NULL
) STRICT;
CREATE INDEX ticket_history_ticket ON ticket_history (ticket_id, id);

-- Why and when a ticket went to the human queue.
CREATE TABLE ticket_escalations (
    id          INTEGER PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    confidence  REAL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX ticket_escalations_ticket ON ticket_escalations (ticket_id, id);

-- In-app notifications. audience is 'admins' or one user's id.
CREATE TABLE notifications (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    audience    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    ref         TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX notifications_org_created ON notifications (org_id, created_at);

-- migration: 5
-- Derived event data (hourly, asset, indicator and source rollups, and the
-- counters of alerts that events join) is folded from the stored events in
-- batches, behind ingest: see store/fold.go. Events get an explicit sequence
-- (a rowid alias VACUUM cannot renumber) so the fold has a durable cursor.
CREATE TABLE events_v5 (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    ts           INTEGER NOT NULL,
    type         TEXT NOT NULL,
    severity     INTEGER NOT NULL CHECK (severity BETWEEN 0 AND 4),
    source       TEXT NOT NULL,
    asset        TEXT NOT NULL,
    message      TEXT NOT NULL,
    indicator    TEXT NOT NULL DEFAULT '',
    details      TEXT,
    alert_id     TEXT,
    received_at  INTEGER NOT NULL
) STRICT;
INSERT INTO events_v5 (seq, id, org_id, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at)
    SELECT rowid, id, org_id, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at
    FROM events ORDER BY rowid;
DROP TABLE events;
ALTER TABLE events_v5 RENAME TO events;
CREATE INDEX events_org_ts ON events (org_id, ts);
CREATE INDEX events_org_severity_ts ON events (org_id, severity, ts);
CREATE INDEX events_alert ON events (alert_id) WHERE alert_id IS NOT NULL;
CREATE INDEX events_org_asset_ts ON events (org_id, asset, ts);

-- The fold's cursor: every event with seq <= events_seq is in the rollups.
-- Sequences are never reused (see events_hw, migration 14).
CREATE TABLE fold_state (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    events_seq  INTEGER NOT NULL
) STRICT;
INSERT INTO fold_state (id, events_seq) VALUES (1, (SELECT COALESCE(MAX(seq), 0) FROM events));

-- Burst windows are counted in memory (store/alertmemory.go), recounted
-- from events after a restart.
DROP TABLE burst_windows;

-- An alert's event_count includes its own events with seq <= counted_through;
-- the fold adds the later ones. New alerts count their first batch at once.
ALTER TABLE alerts ADD COLUMN counted_through INTEGER NOT NULL DEFAULT 0;

-- The window whose earlier events a burst alert took in when it crossed the
-- threshold: its lower-severity events with seq <= upto_seq and no alert of
-- their own belong to alert_id. A window crosses at most once.
CREATE TABLE alert_windows (
    org_id    TEXT NOT NULL,
    asset     TEXT NOT NULL,
    type      TEXT NOT NULL,
    window    INTEGER NOT NULL,
    alert_id  TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    upto_seq  INTEGER NOT NULL,
    PRIMARY KEY (org_id, asset, type, window)
) STRICT, WITHOUT ROWID;
CREATE INDEX alert_windows_alert ON alert_windows (alert_id);

-- How many assets threat_assets holds for an indicator: it keeps the first
-- 20 to report it (store.maxThreatAssets), so a worm seen on every host
-- costs no more than that.
ALTER TABLE threat_indicators ADD COLUMN assets INTEGER NOT NULL DEFAULT 0;
UPDATE threat_indicators SET assets = (SELECT COUNT(*) FROM threat_assets a
    WHERE a.org_id = threat_indicators.org_id AND a.indicator = threat_indicators.indicator);

-- migration: 6
-- Every event an organization has, by type and severity, kept by the fold
-- beside the hourly rollup: the total of an events list without a time
-- range reads a handful of rows instead of every hour of history. Alerts
-- count the events that join them at ingest (the fold's alert counting is
-- left for events stored before this version).
CREATE TABLE event_counts (
    org_id    TEXT NOT NULL,
    type      TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, type, severity)
) STRICT, WITHOUT ROWID;
INSERT INTO event_counts (org_id, type, severity, n)
    SELECT org_id, type, severity, SUM(n) FROM event_rollup GROUP BY org_id, type, severity;

-- migration: 7
-- Compliance audits. An audit is a run of the compliance agent (its status
-- is the run's); summary and results are the JSON the engine wrote when the
-- run completed: counts per framework, and each framework's controls with
-- their results and evidence.
CREATE TABLE compliance_audits (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL UNIQUE REFERENCES agent_runs(id) ON DELETE CASCADE,
    frameworks   TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    completed_at INTEGER,
    summary      TEXT,
    results      TEXT
) STRICT;
CREATE INDEX compliance_audits_org ON compliance_audits (org_id, id);

-- A failing control of an organization's framework, from the audit that
-- found it until one finds it passing. One open gap per control: an audit
-- that still finds it failing updates it and keeps its id.
CREATE TABLE compliance_gaps (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    framework       TEXT NOT NULL,
    control_id      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    severity        INTEGER NOT NULL CHECK (severity BETWEEN 0 AND 4),
    detail          TEXT NOT NULL,
    opened_audit_id TEXT NOT NULL,
    last_audit_id   TEXT NOT NULL,
    closed_audit_id TEXT,
    opened_at       INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    closed_at       INTEGER
) STRICT;
CREATE UNIQUE INDEX compliance_gaps_open ON compliance_gaps (org_id, framework, control_id) WHERE status = 'open';
CREATE INDEX compliance_gaps_org ON compliance_gaps (org_id, status, framework);

-- An admin's statement about a control no check can evidence.
CREATE TABLE compliance_attestations (
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    framework    TEXT NOT NULL,
    control_id   TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'not_applicable')),
    note         TEXT NOT NULL,
    evidence_url TEXT NOT NULL,
    expires_at   INTEGER,
    attested_by  TEXT NOT NULL,
    attested_at  INTEGER NOT NULL,
    PRIMARY KEY (org_id, framework, control_id)
) STRICT, WITHOUT ROWID;

-- Policy templates an organization adopted.
CREATE TABLE policy_adoptions (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    template_id TEXT NOT NULL,
    adopted_by  TEXT NOT NULL,
    adopted_at  INTEGER NOT NULL,
    PRIMARY KEY (org_id, template_id)
) STRICT, WITHOUT ROWID;

-- Remediations of gaps: who asked, what was planned or changed.
CREATE TABLE compliance_remediations (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    gap_id     TEXT NOT NULL REFERENCES compliance_gaps(id) ON DELETE CASCADE,
    status     TEXT NOT NULL CHECK (status IN ('applied', 'manual_required', 'planned')),
    changes    TEXT NOT NULL,
    passes_now INTEGER,
    actor      TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX compliance_remediations_gap ON compliance_remediations (org_id, gap_id, id);

-- migration: 8
-- The local vulnerability intelligence store, fed by imports: public data
-- shared by every organization on the appliance. A CVE keeps the latest
-- normalized record of each source (NVD, CVE JSON 5), the enrichment view
-- computed from them with KEV and EPSS (view_at: when it last changed), and
-- targets: the CPE ranges and affected products assets are matched against.
-- nvd, cve5 and targets are JSON compressed with DEFLATE (intel/pack.go).
CREATE TABLE intel_cves (
    id         TEXT PRIMARY KEY,
    nvd        BLOB,
    cve5       BLOB,
    view       TEXT NOT NULL,
    targets    BLOB NOT NULL,
    vendor     TEXT NOT NULL DEFAULT '',
    product    TEXT NOT NULL DEFAULT '',
    view_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX intel_cves_product ON intel_cves (vendor, product);

CREATE TABLE intel_kev (
    cve_id TEXT PRIMARY KEY,
    data   TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE intel_epss (
    cve_id     TEXT PRIMARY KEY,
    score      REAL NOT NULL,
    percentile REAL NOT NULL,
    score_date TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- ATT&CK techniques imported from a STIX bundle; they take precedence over
-- the catalog embedded in the binary.
CREATE TABLE intel_techniques (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    tactics    TEXT NOT NULL,
    deprecated INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE intel_imports (
    id          TEXT PRIMARY KEY,
    format      TEXT NOT NULL,
    name        TEXT NOT NULL,
    via         TEXT NOT NULL,
    actor       TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    records     INTEGER NOT NULL DEFAULT 0,
    added       INTEGER NOT NULL DEFAULT 0,
    changed     INTEGER NOT NULL DEFAULT 0,
    unchanged   INTEGER NOT NULL DEFAULT 0,
    skipped     INTEGER NOT NULL DEFAULT 0,
    newest      INTEGER,
    meta        TEXT NOT NULL DEFAULT '{}',
    error       TEXT NOT NULL DEFAULT '',
    started_at  INTEGER NOT NULL,
    finished_at INTEGER
) STRICT;
CREATE INDEX intel_imports_format ON intel_imports (format, started_at);

-- What an import changed in a CVE's view: one row per field.
CREATE TABLE intel_changes (
    id        INTEGER PRIMARY KEY,
    cve_id    TEXT NOT NULL,
    import_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    before    TEXT,
    after     TEXT,
    at        INTEGER NOT NULL
) STRICT;
CREATE INDEX intel_changes_cve ON intel_changes (cve_id, id);
CREATE INDEX intel_changes_import ON intel_changes (import_id, cve_id);

CREATE TABLE cve_watchlist (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    cve_id     TEXT NOT NULL,
    added_by   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (org_id, cve_id)
) STRICT;
CREATE INDEX cve_watchlist_cve ON cve_watchlist (cve_id, org_id);

-- Imports whose changes an organization has been told of (once each).
CREATE TABLE intel_notified (
    org_id    TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    import_id TEXT NOT NULL,
    at        INTEGER NOT NULL,
    PRIMARY KEY (org_id, import_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE assets (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    hostname   TEXT NOT NULL,
    ip         TEXT NOT NULL,
    os         TEXT NOT NULL,
    owner      TEXT NOT NULL,
    software   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (org_id, hostname)
) STRICT;

-- What a sync last fetched from each URL, for conditional requests.
CREATE TABLE intel_sync (
    url           TEXT PRIMARY KEY,
    etag          TEXT NOT NULL,
    last_modified TEXT NOT NULL,
    checked_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Which reader has read a notification.
CREATE TABLE notification_reads (
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    reader          TEXT NOT NULL,
    read_at         INTEGER NOT NULL,
    PRIMARY KEY (notification_id, reader)
) STRICT, WITHOUT ROWID;

-- migration: 9
-- Outreach: prospects an organization imports, and the leads the
-- msp-hunter agent scores from them, with the history of every status and
-- score change.
CREATE TABLE prospects (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    domain        TEXT NOT NULL,
    company       TEXT NOT NULL,
    vertical      TEXT NOT NULL,
    region        TEXT NOT NULL,
    employees     INTEGER,
    contact_name  TEXT NOT NULL,
    contact_email TEXT NOT NULL,
    contact_phone TEXT NOT NULL,
    notes         TEXT NOT NULL,
    attributes    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (org_id, domain)
) STRICT;

-- What an import merged into an existing prospect.
CREATE TABLE prospect_merges (
    id          INTEGER PRIMARY KEY,
    prospect_id TEXT NOT NULL REFERENCES prospects(id) ON DELETE CASCADE,
    changes     TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX prospect_merges_prospect ON prospect_merges (prospect_id, id);

CREATE TABLE leads (
    id                   TEXT PRIMARY KEY,
    org_id               TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    prospect_id          TEXT NOT NULL REFERENCES prospects(id) ON DELETE CASCADE,
    status               TEXT NOT NULL CHECK (status IN ('new', 'contacted', 'responded', 'qualified', 'won', 'lost')),
    score                INTEGER NOT NULL CHECK (score BETWEEN 0 AND 100),
    score_reasons        TEXT NOT NULL,
    intelligence_summary TEXT NOT NULL,
    summary_source       TEXT NOT NULL,
    run_id               TEXT NOT NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    UNIQUE (org_id, prospect_id)
) STRICT;
CREATE INDEX leads_org_score ON leads (org_id, score DESC, id);
CREATE INDEX leads_org_updated ON leads (org_id, updated_at DESC, id);

-- A lead's status and score changes: who, when, from, to, why.
CREATE TABLE lead_history (
    id      INTEGER PRIMARY KEY,
    lead_id TEXT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    kind    TEXT NOT NULL CHECK (kind IN ('status', 'score')),
    from_v  TEXT,
    to_v    TEXT NOT NULL,
    note    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      INTEGER NOT NULL
) STRICT;
CREATE INDEX lead_history_lead ON lead_history (lead_id, id);

-- migration: 10
-- One intelligence import at a time, across processes (the server,
-- garrison intel import): a running import beats after each batch; one
-- whose beat is stale was cut short and is failed by the next import to
-- start. Imports a crash left running before this migration are failed now.
ALTER TABLE intel_imports ADD COLUMN beat_at INTEGER NOT NULL DEFAULT 0;
UPDATE intel_imports SET status = 'failed', error = 'The import stopped without finishing (its process ended)'
    WHERE status = 'running';
CREATE UNIQUE INDEX intel_imports_running ON intel_imports (status) WHERE status = 'running';

-- Prospects are searched (q) by a lower-cased company name and domain,
-- folded in Go: SQLite's lower() folds ASCII only.
ALTER TABLE prospects ADD COLUMN search TEXT NOT NULL DEFAULT '';
UPDATE prospects SET search = lower(company) || ' ' || domain;

-- migration: 11
-- The security audit trail: who (user or API key, and from where) changed
-- what, per organization. No foreign key: an organization's deletion is
-- itself recorded and kept. Append-only through the API.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY,
    org_id     TEXT NOT NULL,
    at         INTEGER NOT NULL,
    actor      TEXT NOT NULL,
    ip         TEXT NOT NULL,
    request_id TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    detail     TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_org ON audit_log (org_id, id);

-- migration: 12
-- Events per indicator and day, folded like asset_rollup, so the top
-- indicators of a window count that window (they counted all time).
CREATE TABLE indicator_rollup (
    org_id    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    indicator TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, day, indicator)
) STRICT, WITHOUT ROWID;
INSERT INTO indicator_rollup (org_id, day, indicator, n)
    SELECT org_id, ts - (ts % 86400000), indicator, COUNT(*) FROM events
    WHERE indicator != '' AND seq <= (SELECT events_seq FROM fold_state)
    GROUP BY org_id, ts - (ts % 86400000), indicator;

-- migration: 13
-- An asset's events are looked up one burst window (ten minutes) at a
-- time: the burst recount and an alert's events. Indexed by window first,
-- a batch's events land in the few index pages of their window instead of
-- one page per asset (at a million stored events, ingest wrote a page per
-- asset per batch; seeded ingest is 1.5× faster). The expression is the
-- one the queries use (store.burstWindowOf).
DROP INDEX events_org_asset_ts;
CREATE INDEX events_org_window_asset ON events (org_id, ts - (ts % 600000 + 600000) % 600000, asset, type);

-- migration: 14
-- Organizations take turns at the agent workers (store.queueTurns): the
-- turn each was last served, from a counter that only grows, so two claims
-- in one millisecond still order; and the queued runs by organization
-- (oldest first within one).
CREATE TABLE agent_turns (
    org_id  TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    turn    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX agent_turns_turn ON agent_turns (turn);
CREATE INDEX agent_runs_queued_org ON agent_runs (org_id, seq) WHERE status = 'queued';
-- The highest event sequence ever given. Events are deleted (an
-- organization's, or all of one's by retention), and SQLite would give the
-- next event the number after the highest left, at or below the fold's
-- cursor, where the fold never counts it: ingest numbers events from here.
ALTER TABLE fold_state ADD COLUMN events_hw INTEGER NOT NULL DEFAULT 0;
UPDATE fold_state SET events_hw = MAX(events_seq, (SELECT COALESCE(MAX(seq), 0) FROM events));

-- migration: 15
-- An alert a SOC can work: who took it (assignee, a user of the
-- organization), who acknowledged it and when, and on resolution whether
-- it was real (disposition). Each change is a line of the alert's history,
-- named by its action.
ALTER TABLE alerts ADD COLUMN assignee TEXT;
ALTER TABLE alerts ADD COLUMN acknowledged_at INTEGER;
ALTER TABLE alerts ADD COLUMN acknowledged_by TEXT;
ALTER TABLE alerts ADD COLUMN disposition TEXT CHECK (disposition IN ('true_positive', 'false_positive', 'benign', 'duplicate'));
ALTER TABLE alert_history ADD COLUMN action TEXT NOT NULL DEFAULT 'status'
    CHECK (action IN ('status', 'assign', 'acknowledge'));
ALTER TABLE alert_history ADD COLUMN disposition TEXT;
ALTER TABLE alert_history ADD COLUMN assignee TEXT;
CREATE INDEX alerts_org_assignee ON alerts (org_id, assignee, last_seen) WHERE assignee IS NOT NULL;

-- migration: 16
-- How each account came to be, so no chain of API-key actions can end in
-- an admin with a person's powers: an invitation an API key made is
-- marked (invited_by_key), and an account made through one is
-- 'key_invite'. An organization keeps at least one admin who did not.
ALTER TABLE invites ADD COLUMN invited_by_key TEXT;
ALTER TABLE users ADD COLUMN origin TEXT NOT NULL DEFAULT 'signup'
    CHECK (origin IN ('signup', 'invite', 'key_invite', 'operator'));
UPDATE users SET origin = 'invite'
    WHERE id IN (SELECT u.id FROM users u JOIN invites i ON i.email = u.email AND i.org_id = u.org_id WHERE i.accepted_at IS NOT NULL);

-- migration: 17
-- The bytes each organization's events and DNS queries take, kept with
-- every ingest and prune, against its quota (orgs.storage_quota in bytes;
-- NULL: the appliance's default, a share of the disk): one tenant cannot
-- fill the appliance. warned_at is when its admins were told it passed 80%.
-- The sums are store/usage.go's eventBytesSQL and dnsBytesSQL.
ALTER TABLE orgs ADD COLUMN storage_quota INTEGER;
CREATE TABLE org_usage (
    org_id        TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    stored_bytes  INTEGER NOT NULL DEFAULT 0,
    warned_at     INTEGER
) STRICT, WITHOUT ROWID;
INSERT INTO org_usage (org_id, stored_bytes)
    SELECT org_id, SUM(n) FROM (
        SELECT org_id, 100 + octet_length(type) + octet_length(source) + octet_length(asset) + octet_length(message)
            + octet_length(indicator) + COALESCE(octet_length(details), 0) AS n FROM events
        UNION ALL
        SELECT org_id, 60 + octet_length(source) + octet_length(client) + octet_length(domain) + octet_length(qtype)
            + octet_length(rcode) + octet_length(category) FROM dns_queries)
    GROUP BY org_id;

-- migration: 18
-- A registration for an address that an unconfirmed account, made through
-- another organization's invitation, holds: it waits for the mailbox to
-- confirm it (token_hash, mailed), and confirming it removes the holder and
-- makes the account (store/claims.go). An invitation's token is shown to
-- whoever invited, so it proves nothing about the mailbox.
CREATE TABLE email_claims (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL,
    name           TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    org_name       TEXT NOT NULL,
    plan           TEXT NOT NULL,
    invite_hash    BLOB,
    token_hash     BLOB NOT NULL UNIQUE,
    expires_at     INTEGER NOT NULL,
    created_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX email_claims_email ON email_claims (email, created_at);

-- migration: 19
-- Providers and their clients, and people in several organizations
-- (store/tenancy.go). An organization is standalone (as every one was
-- before), a provider, or a client of one provider (one level); a client
-- takes its provider's plan unless plan_inherited is 0. A membership is a
-- person's role in one organization: admin, member, or for a provider's
-- staff technician (acts in the provider's clients, does not manage the
-- provider). users.org_id stays the account's home: the organization it
-- was made in, whose deletion ends the account unless it belongs elsewhere
-- too. A provider's admin or technician reaches every client of the
-- provider (all_clients 1), or only those in member_clients (all_clients
-- 0; none once they are all offboarded).
ALTER TABLE orgs ADD COLUMN kind TEXT NOT NULL DEFAULT 'standalone' CHECK (kind IN ('standalone', 'provider', 'client'));
ALTER TABLE orgs ADD COLUMN provider_id TEXT REFERENCES orgs(id);
ALTER TABLE orgs ADD COLUMN plan_inherited INTEGER NOT NULL DEFAULT 0 CHECK (plan_inherited IN (0, 1));
CREATE INDEX orgs_provider ON orgs (provider_id, name) WHERE provider_id IS NOT NULL;
CREATE TABLE memberships (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('admin', 'member', 'technician')),
    origin      TEXT NOT NULL CHECK (origin IN ('signup', 'invite', 'key_invite', 'operator')),
    created_at  INTEGER NOT NULL,
    all_clients INTEGER NOT NULL DEFAULT 1 CHECK (all_clients IN (0, 1)),
    PRIMARY KEY (user_id, org_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX memberships_org ON memberships (org_id, role);
INSERT INTO memberships (user_id, org_id, role, origin, created_at)
    SELECT id, org_id, role, origin, created_at FROM users;
DROP INDEX users_org;
ALTER TABLE users DROP COLUMN role;
CREATE INDEX users_org ON users (org_id);
CREATE TABLE member_clients (
    user_id     TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    client_id   TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, client_id),
    FOREIGN KEY (user_id, provider_id) REFERENCES memberships(user_id, org_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX member_clients_provider ON member_clients (provider_id, user_id);
CREATE TABLE invites_v19 (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email          TEXT NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('admin', 'member', 'technician')),
    token_hash     BLOB NOT NULL UNIQUE,
    invited_by     TEXT REFERENCES users(id) ON DELETE SET NULL,
    invited_by_key TEXT,
    expires_at     INTEGER NOT NULL,
    accepted_at    INTEGER,
    created_at     INTEGER NOT NULL
) STRICT;
INSERT INTO invites_v19 (id, org_id, email, role, token_hash, invited_by, invited_by_key, expires_at, accepted_at, created_at)
    SELECT id, org_id, email, role, token_hash, invited_by, invited_by_key, expires_at, accepted_at, created_at FROM invites;
DROP TABLE invites;
ALTER TABLE invites_v19 RENAME TO invites;
CREATE INDEX invites_org ON invites (org_id, created_at);
-- A won lead that became a client names it in its history (kind client,
-- to_v: the client's id).
CREATE TABLE lead_history_v19 (
    id      INTEGER PRIMARY KEY,
    lead_id TEXT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    kind    TEXT NOT NULL CHECK (kind IN ('status', 'score', 'client')),
    from_v  TEXT,
    to_v    TEXT NOT NULL,
    note    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      INTEGER NOT NULL
) STRICT;
INSERT INTO lead_history_v19 SELECT id, lead_id, kind, from_v, to_v, note, actor, at FROM lead_history;
DROP TABLE lead_history;
ALTER TABLE lead_history_v19 RENAME TO lead_history;
CREATE INDEX lead_history_lead ON lead_history (lead_id, id);

-- migration: 20
-- The fleet view's oldest open critical alert per client, read from an
-- index of the open critical alerts alone instead of every open alert's
-- row (store/fleet.go).
CREATE INDEX alerts_org_open_critical ON alerts (org_id, created_at) WHERE status = 'open' AND severity = 4;

-- migration: 21
-- Notifications that reach a person (issue 30). Contact points are an
-- organization's receivers: e-mail (addresses or roles), signed webhooks,
-- Slack-compatible and Teams webhooks, PagerDuty. A channel's secret (a
-- webhook's signing secret, PagerDuty's routing key) is never read back
-- by the API.
CREATE TABLE notification_channels (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('email', 'webhook', 'slack', 'teams', 'pagerduty')),
    url              TEXT NOT NULL DEFAULT '',
    addresses        TEXT NOT NULL DEFAULT '[]',
    roles            TEXT NOT NULL DEFAULT '[]',
    secret           TEXT NOT NULL DEFAULT '',
    failing_since    INTEGER,
    last_success_at  INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (org_id, name)
) STRICT;

-- Routing rules: which alerts go to which contact points, when, and who
-- hears of a critical one nobody acknowledged.
CREATE TABLE notification_rules (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    enabled             INTEGER NOT NULL DEFAULT 1,
    min_severity        INTEGER NOT NULL,
    categories          TEXT NOT NULL DEFAULT '[]',
    event_types         TEXT NOT NULL DEFAULT '[]',
    clients             TEXT NOT NULL DEFAULT '[]',
    assets              TEXT NOT NULL DEFAULT '[]',
    sources             TEXT NOT NULL DEFAULT '[]',
    quiet_start         INTEGER,
    quiet_end           INTEGER,
    quiet_zone          TEXT NOT NULL DEFAULT 'UTC',
    group_seconds       INTEGER NOT NULL DEFAULT 0,
    escalate_minutes    INTEGER NOT NULL DEFAULT 15,
    escalate_max        INTEGER NOT NULL DEFAULT 3,
    overrides_provider  INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (org_id, name)
) STRICT;

-- A rule's contact points: notified, or escalated to. A channel in use
-- cannot be deleted.
CREATE TABLE notification_rule_channels (
    rule_id     TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    channel_id  TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE RESTRICT,
    purpose     TEXT NOT NULL CHECK (purpose IN ('notify', 'escalate')),
    PRIMARY KEY (rule_id, purpose, channel_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX notification_rule_channels_channel ON notification_rule_channels (channel_id);

-- What happened to alerts, written in the transaction that did it and
-- taken by the router: an alert is never opened without its notification
-- being decided, even across a crash.
CREATE TABLE alert_signals (
    seq       INTEGER PRIMARY KEY,
    org_id    TEXT NOT NULL,
    alert_id  TEXT NOT NULL,
    signal    TEXT NOT NULL CHECK (signal IN ('opened', 'resolved', 'acknowledged')),
    at        INTEGER NOT NULL
) STRICT;

-- The delivery outbox: one row per message and receiver, keyed by its
-- idempotency key so a repeated decision adds nothing. A message's body is
-- frozen when queued; each attempt signs it anew.
CREATE TABLE notification_deliveries (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    alert_org_id  TEXT NOT NULL,
    channel_id    TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
    rule_id       TEXT,
    recipient     TEXT NOT NULL DEFAULT '',
    idem_key      TEXT NOT NULL UNIQUE,
    event         TEXT NOT NULL CHECK (event IN ('trigger', 'resolve', 'acknowledge', 'escalate', 'test')),
    alert_id      TEXT NOT NULL DEFAULT '',
    group_key     TEXT,
    message       TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_at       INTEGER NOT NULL,
    last_status   INTEGER,
    last_error    TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    delivered_at  INTEGER
) STRICT;
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX notification_deliveries_org ON notification_deliveries (org_id, created_at);
CREATE INDEX notification_deliveries_group ON notification_deliveries (group_key, created_at) WHERE group_key IS NOT NULL;
CREATE INDEX notification_deliveries_alert ON notification_deliveries (alert_id) WHERE alert_id != '';

-- Critical alerts awaiting acknowledgement under a rule that escalates.
CREATE TABLE alert_escalations (
    alert_id  TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    rule_id   TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    sent      INTEGER NOT NULL DEFAULT 0,
    next_at   INTEGER NOT NULL,
    PRIMARY KEY (alert_id, rule_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX alert_escalations_due ON alert_escalations (next_at);

-- Every organization starts with its admins mailed of critical and high
-- alerts.
INSERT INTO notification_channels (id, org_id, name, kind, roles, created_at, updated_at)
    SELECT 'nch_' || lower(hex(randomblob(10))), id, 'Admins by e-mail', 'email', '["admin"]', created_at, created_at FROM orgs;
INSERT INTO notification_rules (id, org_id, name, min_severity, group_seconds, created_at, updated_at)
    SELECT 'nrl_' || lower(hex(randomblob(10))), id, 'Critical and high alerts', 3, 60, created_at, created_at FROM orgs;
INSERT INTO notification_rule_channels (rule_id, channel_id, purpose)
    SELECT r.id, c.id, 'notify' FROM notification_rules r JOIN notification_channels c ON c.org_id = r.org_id;

-- migration: 22
-- What Garrison told an organization about an API key's expiry, once each:
-- the notices 14, 3 and 1 days before, and 0 for the alert of an expired
-- key still in use.
CREATE TABLE key_notices (
    key_id  TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    notice  INTEGER NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (key_id, notice)
) STRICT, WITHOUT ROWID;

-- migration: 23
-- An alert's ticket, linked both ways (POST /alerts/{id}/ticket): one
-- ticket per alert.
ALTER TABLE alerts ADD COLUMN ticket_id TEXT;
ALTER TABLE tickets ADD COLUMN alert_id TEXT;
CREATE UNIQUE INDEX tickets_alert ON tickets (alert_id) WHERE alert_id IS NOT NULL;

-- migration: 24
-- Alert suppressions: matching events are stored and counted and open no
-- alert until the suppression expires (or is ended early).
CREATE TABLE alert_suppressions (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    signature   TEXT NOT NULL DEFAULT '',
    asset       TEXT NOT NULL DEFAULT '',
    indicator   TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',
    reason      TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    hits        INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX alert_suppressions_org ON alert_suppressions (org_id, expires_at);

-- migration: 25
-- Telemetry's normalised fields (addresses as 16 bytes, IPv4 mapped, so a
-- CIDR is one range of an index) and the record as it was received, kept
-- apart so that scans of the events table stay short.
ALTER TABLE events ADD COLUMN src_ip BLOB;
ALTER TABLE events ADD COLUMN dst_ip BLOB;
ALTER TABLE events ADD COLUMN src_port INTEGER;
ALTER TABLE events ADD COLUMN dst_port INTEGER;
ALTER TABLE events ADD COLUMN user_name TEXT;
ALTER TABLE events ADD COLUMN process TEXT;
ALTER TABLE events ADD COLUMN command_line TEXT;
ALTER TABLE events ADD COLUMN host TEXT;
ALTER TABLE events ADD COLUMN rule TEXT;
ALTER TABLE events ADD COLUMN action TEXT;
CREATE INDEX events_org_src_ip ON events (org_id, src_ip, ts) WHERE src_ip IS NOT NULL;
CREATE INDEX events_org_dst_ip ON events (org_id, dst_ip, ts) WHERE dst_ip IS NOT NULL;
CREATE INDEX events_org_user ON events (org_id, user_name, ts) WHERE user_name IS NOT NULL;
-- An organization's own event retention (NULL: the appliance's
-- --retention; 0: kept for good).
ALTER TABLE orgs ADD COLUMN retention_ms INTEGER;
CREATE TABLE event_originals (
    seq       INTEGER PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    original  TEXT NOT NULL
) STRICT;

-- migration: 26
-- Events stored compactly: at ten million events the database held 502
-- bytes an event. An event names its organization by a number
-- (org_numbers, never reused) instead of the 30-character id, in the row
-- and in every index; an event's id is derived from its seq under a key
-- of this database (store/eventid.go) instead of stored with a unique
-- index, so only events stored before keep theirs (legacy_id); and the
-- burst-window index goes, a window's events being read from the time
-- index. event_originals is rebuilt with the table it references.
CREATE TABLE org_numbers (
    num     INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id  TEXT NOT NULL UNIQUE REFERENCES orgs(id) ON DELETE CASCADE
) STRICT;
INSERT INTO org_numbers (org_id) SELECT id FROM orgs ORDER BY created_at, id;
CREATE TRIGGER orgs_number AFTER INSERT ON orgs BEGIN
    INSERT INTO org_numbers (org_id) VALUES (NEW.id);
END;
CREATE TABLE event_id_key (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    key  BLOB NOT NULL CHECK (length(key) = 16)
) STRICT;
INSERT INTO event_id_key (id, key) VALUES (1, randomblob(16));
CREATE TABLE originals_v26 AS SELECT seq, original FROM event_originals;
DROP TABLE event_originals;
CREATE TABLE events_v26 (
    seq           INTEGER PRIMARY KEY,
    org           INTEGER NOT NULL REFERENCES org_numbers(num) ON DELETE CASCADE,
    ts            INTEGER NOT NULL,
    type          TEXT NOT NULL,
    severity      INTEGER NOT NULL CHECK (severity BETWEEN 0 AND 4),
    source        TEXT NOT NULL,
    asset         TEXT NOT NULL,
    message       TEXT NOT NULL,
    indicator     TEXT NOT NULL DEFAULT '',
    details       TEXT,
    alert_id      TEXT,
    received_at   INTEGER NOT NULL,
    src_ip        BLOB,
    dst_ip        BLOB,
    src_port      INTEGER,
    dst_port      INTEGER,
    user_name     TEXT,
    process       TEXT,
    command_line  TEXT,
    host          TEXT,
    rule          TEXT,
    action        TEXT,
    legacy_id     TEXT
) STRICT;
INSERT INTO events_v26 (seq, org, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at,
        src_ip, dst_ip, src_port, dst_port, user_name, process, command_line, host, rule, action, legacy_id)
    SELECT e.seq, n.num, e.ts, e.type, e.severity, e.source, e.asset, e.message, e.indicator, e.details, e.alert_id, e.received_at,
        e.src_ip, e.dst_ip, e.src_port, e.dst_port, e.user_name, e.process, e.command_line, e.host, e.rule, e.action, e.id
    FROM events e JOIN org_numbers n ON n.org_id = e.org_id ORDER BY e.seq;
DROP TABLE events;
ALTER TABLE events_v26 RENAME TO events;
CREATE INDEX events_org_ts ON events (org, ts);
CREATE INDEX events_org_severity_ts ON events (org, severity, ts);
CREATE INDEX events_alert ON events (alert_id) WHERE alert_id IS NOT NULL;
CREATE UNIQUE INDEX events_legacy_id ON events (legacy_id) WHERE legacy_id IS NOT NULL;
CREATE INDEX events_org_src_ip ON events (org, src_ip, ts) WHERE src_ip IS NOT NULL;
CREATE INDEX events_org_dst_ip ON events (org, dst_ip, ts) WHERE dst_ip IS NOT NULL;
CREATE INDEX events_org_user ON events (org, user_name, ts) WHERE user_name IS NOT NULL;
CREATE TABLE event_originals (
    seq       INTEGER PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    original  TEXT NOT NULL
) STRICT;
INSERT INTO event_originals (seq, original) SELECT seq, original FROM originals_v26 ORDER BY seq;
DROP TABLE originals_v26;

-- migration: 27
-- Text search through an index instead of a scan: each event's words
-- (event.IndexWords) in an FTS5 table without content, as tokens that
-- carry the organization's number (store/eventtext.go); and the range of
-- times of each block of 4,096 seqs, so that a search's newest page stops
-- reading candidates once no older one can be newer. Events stored before
-- are indexed when the server starts (event_text_backfill). Without a
-- size table (columnsize=0, 13 bytes an event), a row is deleted by
-- naming its words again (the 'delete' command): whatever deletes events
-- deletes their words first (store/eventtext.go).
CREATE VIRTUAL TABLE event_text USING fts5(words, content='', columnsize=0, detail=none,
    tokenize="unicode61 tokenchars '_'");
CREATE TABLE event_blocks (
    block   INTEGER PRIMARY KEY,
    min_ts  INTEGER NOT NULL,
    max_ts  INTEGER NOT NULL
) STRICT;
INSERT INTO event_blocks (block, min_ts, max_ts) SELECT seq >> 12, MIN(ts), MAX(ts) FROM events GROUP BY 1;
CREATE TABLE event_text_backfill (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    next_seq  INTEGER NOT NULL
) STRICT;
INSERT INTO event_text_backfill (id, next_seq) SELECT 1, MIN(seq) FROM events HAVING COUNT(*) > 0;

-- migration: 28
-- How many times words have left the text index (retention, a deleted
-- organization), counted in the deleting transaction: a search's total
-- kept from an earlier snapshot stays exact while this is unchanged, as
-- events only ever join with higher seqs (store/textcount.go).
CREATE TABLE event_text_deletes (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    n   INTEGER NOT NULL
) STRICT;
INSERT INTO event_text_deletes (id, n) VALUES (1, 0);

-- migration: 29
-- A page of events read its burst windows' alerts by window start, once
-- for the page, instead of a lookup per row; undone by migration 31.
CREATE INDEX alert_windows_org_window ON alert_windows (org_id, window);

-- migration: 30
-- The open alerts Garrison raises about itself, which the watchdog and the
-- dispatcher look up every minute among every organization's alerts
-- (store/systemalerts.go repeats the condition).
CREATE INDEX alerts_open_system ON alerts (category)
    WHERE status = 'open' AND category IN ('sensor_silent', 'credential_expired', 'notification_failing');

-- migration: 31
-- An event's burst alert is looked up row by row again (store/events.go):
-- a window start alone names hundreds of windows when a burst hits every
-- asset at once, so the index of migration 29 read more than it saved.
DROP INDEX alert_windows_org_window;

-- migration: 32
-- A burst alert's earlier events carry its id themselves, marked when the
-- window crosses the threshold (store/ingest.go), instead of a lookup of
-- the window per row on every page of events; the windows taken in so far
-- are marked here.
UPDATE events SET alert_id = w.alert_id
    FROM alert_windows w JOIN org_numbers n ON n.org_id = w.org_id
    WHERE events.org = n.num AND events.ts >= w.window AND events.ts < w.window + 600000
        AND events.asset = w.asset AND events.type = w.type AND events.severity < 3
        AND events.alert_id IS NULL AND events.seq <= w.upto_seq;
DROP TABLE alert_windows;

-- migration: 33
-- Detection rules (package detection): the rule that opened an alert (its
-- id, title, author, level, link and ATT&CK tags as JSON), an
-- organization's choices over the shipped rule sets and single rules (a
-- provider's apply to its clients unless a client chose otherwise), and
-- its own rules as their YAML.
ALTER TABLE alerts ADD COLUMN rule TEXT;
CREATE TABLE detection_choices (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('set', 'rule')),
    name        TEXT NOT NULL,
    enabled     INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    updated_at  INTEGER NOT NULL,
    updated_by  TEXT NOT NULL,
    PRIMARY KEY (org_id, kind, name)
) STRICT;
CREATE TABLE detection_custom_rules (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    title       TEXT NOT NULL,
    level       TEXT NOT NULL,
    yaml        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    created_by  TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (org_id, id)
) STRICT;

-- migration: 34
-- Incidents (alerting/incident.go): alerts sharing an attacker (an outside
-- address, a source, an account) within a day of each other. An alert
-- keeps the attacker its first events named and the incident it joined;
-- an incident's figures are read from its alerts, and the recent alert of
-- an attacker is found through alerts_attacker.
ALTER TABLE alerts ADD COLUMN attacker TEXT;
ALTER TABLE alerts ADD COLUMN incident_id TEXT;
CREATE INDEX alerts_incident ON alerts (incident_id) WHERE incident_id IS NOT NULL;
CREATE INDEX alerts_attacker ON alerts (org_id, attacker, last_seen) WHERE incident_id IS NOT NULL;
CREATE TABLE incidents (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    attacker    TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX incidents_org ON incidents (org_id, created_at);

-- migration: 35
-- Findings (intel/findings.go): every asset's software matched against the
-- whole intelligence store, kept as it changes. asset_products and
-- intel_cve_products index both sides by normalized vendor and product, so
-- that an asset change re-matches only the CVEs of its products and an
-- import only the assets of its CVEs' products. match_queue holds what is
-- still to be matched, written with the change itself: a crash between the
-- change and its matching loses nothing (drained at start). A finding's
-- score, KEV listing and EPSS are copied from the CVE at each match, for
-- the filters; its status changes are kept in finding_changes.
CREATE TABLE asset_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    asset_id    TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, asset_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX asset_products_asset ON asset_products (asset_id);
CREATE TABLE intel_cve_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    cve_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, cve_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX intel_cve_products_cve ON intel_cve_products (cve_id);
CREATE TABLE match_queue (
    kind        TEXT NOT NULL CHECK (kind IN ('asset', 'cve', 'all')),
    key         TEXT NOT NULL,
    queued_at   INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
) STRICT, WITHOUT ROWID;
CREATE TABLE findings (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    asset_id      TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    cve_id        TEXT NOT NULL,
    vendor        TEXT NOT NULL,
    product       TEXT NOT NULL,
    software      TEXT NOT NULL,
    match         TEXT NOT NULL,
    reason        TEXT NOT NULL,
    version_known INTEGER NOT NULL,
    cvss          REAL,
    kev           INTEGER NOT NULL,
    ransomware    INTEGER NOT NULL,
    epss          REAL,
    status        TEXT NOT NULL CHECK (status IN ('open', 'fixed', 'accepted_risk', 'not_affected')),
    status_reason TEXT NOT NULL DEFAULT '',
    justification TEXT NOT NULL DEFAULT '',
    status_until  INTEGER,
    status_by     TEXT NOT NULL DEFAULT '',
    status_at     INTEGER NOT NULL,
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    fixed_at      INTEGER,
    UNIQUE (org_id, asset_id, cve_id, vendor, product)
) STRICT;
CREATE INDEX findings_org_status ON findings (org_id, status, cvss);
CREATE INDEX findings_cve ON findings (cve_id, org_id);
CREATE INDEX findings_asset ON findings (asset_id);
CREATE TABLE finding_changes (
    id          INTEGER PRIMARY KEY,
    finding_id  TEXT NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    at          INTEGER NOT NULL,
    actor       TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT NOT NULL
) STRICT;
CREATE INDEX finding_changes_finding ON finding_changes (finding_id, id);
-- Every asset and CVE the store holds is matched once, at the first start
-- of a release that has findings.
INSERT INTO match_queue (kind, key, queued_at) VALUES ('all', '', 0);

-- migration: 36
-- An asset reachable from the internet ranks its findings first.
ALTER TABLE assets ADD COLUMN internet_facing INTEGER NOT NULL DEFAULT 0;

-- migration: 37
-- The CVEs naming any vendor of a product ("*"), and the vendors NVD names
-- a product under (the name dictionary), are found by product.
CREATE INDEX intel_cve_products_product ON intel_cve_products (product);

-- migration: 38
-- An asset's identifier from the agent that reports it (osquery's host
-- UUID or host identifier): an inventory import merges into the asset of
-- that identifier first, so a renamed host stays one asset.
ALTER TABLE assets ADD COLUMN identifier TEXT NOT NULL DEFAULT '';
CREATE INDEX assets_identifier ON assets (org_id, identifier) WHERE identifier <> '';

-- migration: 39
-- What matching reads of a CVE, apart from its large records and view:
-- its packed targets and the few facts of its view a finding copies (the
-- primary score, KEV and its ransomware use, EPSS), so that matching reads
-- a few hundred bytes a CVE instead of walking its records' pages.
CREATE TABLE intel_cve_match (
    cve_id  TEXT PRIMARY KEY,
    targets BLOB NOT NULL,
    facts   TEXT NOT NULL
) STRICT;
INSERT INTO intel_cve_match (cve_id, targets, facts)
SELECT id, targets, json_object(
    'primary', CASE WHEN json_type(view, '$.primary') IS NULL OR json_type(view, '$.primary') = 'null' THEN NULL
        ELSE json_object('score', COALESCE(json_extract(view, '$.primary.score'), 0)) END,
    'kev', CASE WHEN json_type(view, '$.kev') IS NULL OR json_type(view, '$.kev') = 'null' THEN NULL
        ELSE json_object('ransomware_use', COALESCE(json_extract(view, '$.kev.ransomware_use'), '')) END,
    'epss', CASE WHEN json_type(view, '$.epss.score') IS NULL THEN NULL
        ELSE json_object('score', json_extract(view, '$.epss.score')) END)
FROM intel_cves;
ALTER TABLE intel_cves DROP COLUMN targets;

-- postgres baseline: 39
-- PostgreSQL's migration history begins here, at the schema of migration
-- 39 (the release that brought PostgreSQL: it has no databases of older
-- versions to carry forward). Each later migration gives its PostgreSQL
-- statements after a "-- postgres:" line of its own. The tables are
-- SQLite's with PostgreSQL's types (BIGINT for INTEGER, DOUBLE PRECISION
-- for REAL, BYTEA for BLOB, identity columns for row ids), in the order
-- their foreign keys need; booleans stay integers 0 and 1, as the store
-- writes them on both engines. A table whose queries order ties by
-- SQLite's implicit rowid (insertion order) has a column of that name.
CREATE TABLE orgs (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL CHECK (plan IN ('starter', 'pro', 'ultimate')),
    created_at  BIGINT NOT NULL
, storage_quota BIGINT, kind TEXT NOT NULL DEFAULT 'standalone' CHECK (kind IN ('standalone', 'provider', 'client')), provider_id TEXT REFERENCES orgs(id), plan_inherited BIGINT NOT NULL DEFAULT 0 CHECK (plan_inherited IN (0, 1)), retention_ms BIGINT);

CREATE TABLE agent_runs (
    seq             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    agent           TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
    params          TEXT NOT NULL,
    requested_by    TEXT NOT NULL,
    recoveries      BIGINT NOT NULL DEFAULT 0,
    queued_at       BIGINT NOT NULL,
    started_at      BIGINT,
    finished_at     BIGINT,
    duration_ms     BIGINT,
    output          TEXT,
    output_summary  TEXT NOT NULL DEFAULT '',
    error           TEXT NOT NULL DEFAULT ''
);

CREATE TABLE agent_turns (
    org_id  TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    turn    BIGINT NOT NULL
);

CREATE TABLE alert_counts (
    org_id    TEXT NOT NULL,
    status    TEXT NOT NULL,
    severity  BIGINT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (org_id, status, severity)
);

CREATE TABLE alerts (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    fingerprint         TEXT NOT NULL,
    severity            BIGINT NOT NULL,
    category            TEXT NOT NULL,
    title               TEXT NOT NULL,
    asset               TEXT NOT NULL,
    indicator           TEXT NOT NULL DEFAULT '',
    recommended_action  TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    event_count         BIGINT NOT NULL,
    first_seen          BIGINT NOT NULL,
    last_seen           BIGINT NOT NULL,
    note                TEXT NOT NULL DEFAULT '',
    resolved_at         BIGINT,
    resolved_by         TEXT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
, counted_through BIGINT NOT NULL DEFAULT 0, assignee TEXT, acknowledged_at BIGINT, acknowledged_by TEXT, disposition TEXT CHECK (disposition IN ('true_positive', 'false_positive', 'benign', 'duplicate')), ticket_id TEXT, rule TEXT, attacker TEXT, incident_id TEXT);

CREATE TABLE notification_rules (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    enabled             BIGINT NOT NULL DEFAULT 1,
    min_severity        BIGINT NOT NULL,
    categories          TEXT NOT NULL DEFAULT '[]',
    event_types         TEXT NOT NULL DEFAULT '[]',
    clients             TEXT NOT NULL DEFAULT '[]',
    assets              TEXT NOT NULL DEFAULT '[]',
    sources             TEXT NOT NULL DEFAULT '[]',
    quiet_start         BIGINT,
    quiet_end           BIGINT,
    quiet_zone          TEXT NOT NULL DEFAULT 'UTC',
    group_seconds       BIGINT NOT NULL DEFAULT 0,
    escalate_minutes    BIGINT NOT NULL DEFAULT 15,
    escalate_max        BIGINT NOT NULL DEFAULT 3,
    overrides_provider  BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE alert_escalations (
    alert_id  TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    rule_id   TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    sent      BIGINT NOT NULL DEFAULT 0,
    next_at   BIGINT NOT NULL,
    PRIMARY KEY (alert_id, rule_id)
);

CREATE TABLE alert_history (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    alert_id    TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    note        TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          BIGINT NOT NULL
, action TEXT NOT NULL DEFAULT 'status'
    CHECK (action IN ('status', 'assign', 'acknowledge')), disposition TEXT, assignee TEXT);

CREATE TABLE alert_signals (
    seq       BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    org_id    TEXT NOT NULL,
    alert_id  TEXT NOT NULL,
    signal    TEXT NOT NULL CHECK (signal IN ('opened', 'resolved', 'acknowledged')),
    at        BIGINT NOT NULL
);

CREATE TABLE alert_suppressions (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    signature   TEXT NOT NULL DEFAULT '',
    asset       TEXT NOT NULL DEFAULT '',
    indicator   TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL DEFAULT '',
    reason      TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    ended_at    BIGINT,
    hits        BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email             TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL,
    password_hash     TEXT NOT NULL,
    token_version     BIGINT NOT NULL DEFAULT 0,
    email_verified_at BIGINT,
    created_at        BIGINT NOT NULL
, origin TEXT NOT NULL DEFAULT 'signup'
    CHECK (origin IN ('signup', 'invite', 'key_invite', 'operator')));

CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    scope         TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
    hash          BYTEA NOT NULL UNIQUE,
    prefix        TEXT NOT NULL,
    created_by    TEXT REFERENCES users(id) ON DELETE SET NULL,
    expires_at    BIGINT,
    revoked_at    BIGINT,
    last_used_at  BIGINT,
    created_at    BIGINT NOT NULL
);

CREATE TABLE assets (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    hostname   TEXT NOT NULL,
    ip         TEXT NOT NULL,
    os         TEXT NOT NULL,
    owner      TEXT NOT NULL,
    software   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL, internet_facing BIGINT NOT NULL DEFAULT 0, identifier TEXT NOT NULL DEFAULT '',
    UNIQUE (org_id, hostname)
);

CREATE TABLE asset_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    asset_id    TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, asset_id)
);

CREATE TABLE asset_rollup (
    org_id        TEXT NOT NULL,
    day           BIGINT NOT NULL,
    asset         TEXT NOT NULL,
    n             BIGINT NOT NULL,
    max_severity  BIGINT NOT NULL,
    PRIMARY KEY (org_id, day, asset)
);

CREATE TABLE audit_log (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    org_id     TEXT NOT NULL,
    at         BIGINT NOT NULL,
    actor      TEXT NOT NULL,
    ip         TEXT NOT NULL,
    request_id TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    detail     TEXT NOT NULL
);

CREATE TABLE compliance_attestations (
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    framework    TEXT NOT NULL,
    control_id   TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'not_applicable')),
    note         TEXT NOT NULL,
    evidence_url TEXT NOT NULL,
    expires_at   BIGINT,
    attested_by  TEXT NOT NULL,
    attested_at  BIGINT NOT NULL,
    PRIMARY KEY (org_id, framework, control_id)
);

CREATE TABLE compliance_audits (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    run_id       TEXT NOT NULL UNIQUE REFERENCES agent_runs(id) ON DELETE CASCADE,
    frameworks   TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    completed_at BIGINT,
    summary      TEXT,
    results      TEXT
);

CREATE TABLE compliance_gaps (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    framework       TEXT NOT NULL,
    control_id      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    severity        BIGINT NOT NULL CHECK (severity BETWEEN 0 AND 4),
    detail          TEXT NOT NULL,
    opened_audit_id TEXT NOT NULL,
    last_audit_id   TEXT NOT NULL,
    closed_audit_id TEXT,
    opened_at       BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    closed_at       BIGINT
);

CREATE TABLE compliance_remediations (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    gap_id     TEXT NOT NULL REFERENCES compliance_gaps(id) ON DELETE CASCADE,
    status     TEXT NOT NULL CHECK (status IN ('applied', 'manual_required', 'planned')),
    changes    TEXT NOT NULL,
    passes_now BIGINT,
    actor      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE cve_watchlist (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    cve_id     TEXT NOT NULL,
    added_by   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (org_id, cve_id)
);

CREATE TABLE detection_choices (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('set', 'rule')),
    name        TEXT NOT NULL,
    enabled     BIGINT NOT NULL CHECK (enabled IN (0, 1)),
    updated_at  BIGINT NOT NULL,
    updated_by  TEXT NOT NULL,
    PRIMARY KEY (org_id, kind, name)
);

CREATE TABLE detection_custom_rules (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    title       TEXT NOT NULL,
    level       TEXT NOT NULL,
    yaml        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    created_by  TEXT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (org_id, id)
);

CREATE TABLE dns_blocked_domains (
    org_id     TEXT NOT NULL,
    domain     TEXT NOT NULL,
    category   TEXT NOT NULL,
    n          BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    PRIMARY KEY (org_id, domain)
);

CREATE TABLE dns_queries (
    id        BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    org_id    TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    ts        BIGINT NOT NULL,
    source    TEXT NOT NULL,
    client    TEXT NOT NULL,
    domain    TEXT NOT NULL,
    qtype     TEXT NOT NULL,
    rcode     TEXT NOT NULL,
    category  TEXT NOT NULL DEFAULT ''
);

CREATE TABLE dns_rollup (
    org_id    TEXT NOT NULL,
    hour      BIGINT NOT NULL,
    category  TEXT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (org_id, hour, category)
);

CREATE TABLE email_claims (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL,
    name           TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    org_name       TEXT NOT NULL,
    plan           TEXT NOT NULL,
    invite_hash    BYTEA,
    token_hash     BYTEA NOT NULL UNIQUE,
    expires_at     BIGINT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE TABLE event_blocks (
    block   BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    min_ts  BIGINT NOT NULL,
    max_ts  BIGINT NOT NULL
);

CREATE TABLE event_counts (
    org_id    TEXT NOT NULL,
    type      TEXT NOT NULL,
    severity  BIGINT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (org_id, type, severity)
);

CREATE TABLE event_id_key (
    id   BIGINT PRIMARY KEY CHECK (id = 1),
    key  BYTEA NOT NULL CHECK (octet_length(key) = 16)
);

CREATE TABLE org_numbers (
    num     BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    org_id  TEXT NOT NULL UNIQUE REFERENCES orgs(id) ON DELETE CASCADE
);

CREATE TABLE events (
    seq           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    org           BIGINT NOT NULL REFERENCES org_numbers(num) ON DELETE CASCADE,
    ts            BIGINT NOT NULL,
    type          TEXT NOT NULL,
    severity      BIGINT NOT NULL CHECK (severity BETWEEN 0 AND 4),
    source        TEXT NOT NULL,
    asset         TEXT NOT NULL,
    message       TEXT NOT NULL,
    indicator     TEXT NOT NULL DEFAULT '',
    details       TEXT,
    alert_id      TEXT,
    received_at   BIGINT NOT NULL,
    src_ip        BYTEA,
    dst_ip        BYTEA,
    src_port      BIGINT,
    dst_port      BIGINT,
    user_name     TEXT,
    process       TEXT,
    command_line  TEXT,
    host          TEXT,
    rule          TEXT,
    action        TEXT,
    legacy_id     TEXT
);

CREATE TABLE event_originals (
    seq       BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    original  TEXT NOT NULL
);

CREATE TABLE event_rollup (
    org_id    TEXT NOT NULL,
    hour      BIGINT NOT NULL,
    type      TEXT NOT NULL,
    severity  BIGINT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (org_id, hour, type, severity)
);

CREATE TABLE event_sources (
    org_id     TEXT NOT NULL,
    source     TEXT NOT NULL,
    n          BIGINT NOT NULL,
    first_seen BIGINT NOT NULL,
    last_seen  BIGINT NOT NULL,
    PRIMARY KEY (org_id, source)
);

CREATE TABLE event_text_backfill (
    id        BIGINT PRIMARY KEY CHECK (id = 1),
    next_seq  BIGINT NOT NULL
);

CREATE TABLE event_text_deletes (
    id  BIGINT PRIMARY KEY CHECK (id = 1),
    n   BIGINT NOT NULL
);

CREATE TABLE findings (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    asset_id      TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    cve_id        TEXT NOT NULL,
    vendor        TEXT NOT NULL,
    product       TEXT NOT NULL,
    software      TEXT NOT NULL,
    match         TEXT NOT NULL,
    reason        TEXT NOT NULL,
    version_known BIGINT NOT NULL,
    cvss          DOUBLE PRECISION,
    kev           BIGINT NOT NULL,
    ransomware    BIGINT NOT NULL,
    epss          DOUBLE PRECISION,
    status        TEXT NOT NULL CHECK (status IN ('open', 'fixed', 'accepted_risk', 'not_affected')),
    status_reason TEXT NOT NULL DEFAULT '',
    justification TEXT NOT NULL DEFAULT '',
    status_until  BIGINT,
    status_by     TEXT NOT NULL DEFAULT '',
    status_at     BIGINT NOT NULL,
    first_seen    BIGINT NOT NULL,
    last_seen     BIGINT NOT NULL,
    fixed_at      BIGINT,
    UNIQUE (org_id, asset_id, cve_id, vendor, product)
);

CREATE TABLE finding_changes (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    finding_id  TEXT NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    at          BIGINT NOT NULL,
    actor       TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT NOT NULL
);

CREATE TABLE fold_state (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    events_seq  BIGINT NOT NULL
, events_hw BIGINT NOT NULL DEFAULT 0);

CREATE TABLE incidents (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    attacker    TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE indicator_rollup (
    org_id    TEXT NOT NULL,
    day       BIGINT NOT NULL,
    indicator TEXT NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (org_id, day, indicator)
);

CREATE TABLE intel_changes (
    id        BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    cve_id    TEXT NOT NULL,
    import_id TEXT NOT NULL,
    field     TEXT NOT NULL,
    before    TEXT,
    after     TEXT,
    at        BIGINT NOT NULL
);

CREATE TABLE intel_cve_match (
    cve_id  TEXT PRIMARY KEY,
    targets BYTEA NOT NULL,
    facts   TEXT NOT NULL
);

CREATE TABLE intel_cve_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    cve_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, cve_id)
);

CREATE TABLE intel_cves (
    id         TEXT PRIMARY KEY,
    nvd        BYTEA,
    cve5       BYTEA,
    view       TEXT NOT NULL,
    vendor     TEXT NOT NULL DEFAULT '',
    product    TEXT NOT NULL DEFAULT '',
    view_at    BIGINT NOT NULL
);

CREATE TABLE intel_epss (
    cve_id     TEXT PRIMARY KEY,
    score      DOUBLE PRECISION NOT NULL,
    percentile DOUBLE PRECISION NOT NULL,
    score_date TEXT NOT NULL
);

CREATE TABLE intel_imports (
    id          TEXT PRIMARY KEY,
    format      TEXT NOT NULL,
    name        TEXT NOT NULL,
    via         TEXT NOT NULL,
    actor       TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    records     BIGINT NOT NULL DEFAULT 0,
    added       BIGINT NOT NULL DEFAULT 0,
    changed     BIGINT NOT NULL DEFAULT 0,
    unchanged   BIGINT NOT NULL DEFAULT 0,
    skipped     BIGINT NOT NULL DEFAULT 0,
    newest      BIGINT,
    meta        TEXT NOT NULL DEFAULT '{}',
    error       TEXT NOT NULL DEFAULT '',
    started_at  BIGINT NOT NULL,
    finished_at BIGINT
, beat_at BIGINT NOT NULL DEFAULT 0);

CREATE TABLE intel_kev (
    cve_id TEXT PRIMARY KEY,
    data   TEXT NOT NULL
);

CREATE TABLE intel_notified (
    org_id    TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    import_id TEXT NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (org_id, import_id)
);

CREATE TABLE intel_sync (
    url           TEXT PRIMARY KEY,
    etag          TEXT NOT NULL,
    last_modified TEXT NOT NULL,
    checked_at    BIGINT NOT NULL
);

CREATE TABLE intel_techniques (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    tactics    TEXT NOT NULL,
    deprecated BIGINT NOT NULL
);

CREATE TABLE invites (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email          TEXT NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('admin', 'member', 'technician')),
    token_hash     BYTEA NOT NULL UNIQUE,
    invited_by     TEXT REFERENCES users(id) ON DELETE SET NULL,
    invited_by_key TEXT,
    expires_at     BIGINT NOT NULL,
    accepted_at    BIGINT,
    created_at     BIGINT NOT NULL
);

CREATE TABLE key_notices (
    key_id  TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    notice  BIGINT NOT NULL,
    at      BIGINT NOT NULL,
    PRIMARY KEY (key_id, notice)
);

CREATE TABLE prospects (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    domain        TEXT NOT NULL,
    company       TEXT NOT NULL,
    vertical      TEXT NOT NULL,
    region        TEXT NOT NULL,
    employees     BIGINT,
    contact_name  TEXT NOT NULL,
    contact_email TEXT NOT NULL,
    contact_phone TEXT NOT NULL,
    notes         TEXT NOT NULL,
    attributes    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL, search TEXT NOT NULL DEFAULT '',
    UNIQUE (org_id, domain)
);

CREATE TABLE leads (
    id                   TEXT PRIMARY KEY,
    org_id               TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    prospect_id          TEXT NOT NULL REFERENCES prospects(id) ON DELETE CASCADE,
    status               TEXT NOT NULL CHECK (status IN ('new', 'contacted', 'responded', 'qualified', 'won', 'lost')),
    score                BIGINT NOT NULL CHECK (score BETWEEN 0 AND 100),
    score_reasons        TEXT NOT NULL,
    intelligence_summary TEXT NOT NULL,
    summary_source       TEXT NOT NULL,
    run_id               TEXT NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL,
    UNIQUE (org_id, prospect_id)
);

CREATE TABLE lead_history (
    id      BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    lead_id TEXT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    kind    TEXT NOT NULL CHECK (kind IN ('status', 'score', 'client')),
    from_v  TEXT,
    to_v    TEXT NOT NULL,
    note    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      BIGINT NOT NULL
);

CREATE TABLE match_queue (
    kind        TEXT NOT NULL CHECK (kind IN ('asset', 'cve', 'all')),
    key         TEXT NOT NULL,
    queued_at   BIGINT NOT NULL,
    PRIMARY KEY (kind, key)
);

CREATE TABLE memberships (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('admin', 'member', 'technician')),
    origin      TEXT NOT NULL CHECK (origin IN ('signup', 'invite', 'key_invite', 'operator')),
    created_at  BIGINT NOT NULL,
    all_clients BIGINT NOT NULL DEFAULT 1 CHECK (all_clients IN (0, 1)),
    PRIMARY KEY (user_id, org_id)
);

CREATE TABLE member_clients (
    user_id     TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    client_id   TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, client_id),
    FOREIGN KEY (user_id, provider_id) REFERENCES memberships(user_id, org_id) ON DELETE CASCADE
);

CREATE TABLE notification_channels (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('email', 'webhook', 'slack', 'teams', 'pagerduty')),
    url              TEXT NOT NULL DEFAULT '',
    addresses        TEXT NOT NULL DEFAULT '[]',
    roles            TEXT NOT NULL DEFAULT '[]',
    secret           TEXT NOT NULL DEFAULT '',
    failing_since    BIGINT,
    last_success_at  BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE notification_deliveries (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    alert_org_id  TEXT NOT NULL,
    channel_id    TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
    rule_id       TEXT,
    recipient     TEXT NOT NULL DEFAULT '',
    idem_key      TEXT NOT NULL UNIQUE,
    event         TEXT NOT NULL CHECK (event IN ('trigger', 'resolve', 'acknowledge', 'escalate', 'test')),
    alert_id      TEXT NOT NULL DEFAULT '',
    group_key     TEXT,
    message       TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts      BIGINT NOT NULL DEFAULT 0,
    next_at       BIGINT NOT NULL,
    last_status   BIGINT,
    last_error    TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    delivered_at  BIGINT
);

CREATE TABLE notifications (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    audience    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    ref         TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL
);

CREATE TABLE notification_reads (
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    reader          TEXT NOT NULL,
    read_at         BIGINT NOT NULL,
    PRIMARY KEY (notification_id, reader)
);

CREATE TABLE notification_rule_channels (
    rule_id     TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    channel_id  TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE RESTRICT,
    purpose     TEXT NOT NULL CHECK (purpose IN ('notify', 'escalate')),
    PRIMARY KEY (rule_id, purpose, channel_id)
);

CREATE TABLE org_usage (
    org_id        TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    stored_bytes  BIGINT NOT NULL DEFAULT 0,
    warned_at     BIGINT
);

CREATE TABLE outbox (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    to_addr     TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
    attempts    BIGINT NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  BIGINT NOT NULL,
    sent_at     BIGINT
);

CREATE TABLE policy_adoptions (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    template_id TEXT NOT NULL,
    adopted_by  TEXT NOT NULL,
    adopted_at  BIGINT NOT NULL,
    PRIMARY KEY (org_id, template_id)
);

CREATE TABLE prospect_merges (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    prospect_id TEXT NOT NULL REFERENCES prospects(id) ON DELETE CASCADE,
    changes     TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          BIGINT NOT NULL
);

CREATE TABLE reset_requests (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    email       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE revoked_tokens (
    jti         TEXT PRIMARY KEY,
    expires_at  BIGINT NOT NULL
);

CREATE TABLE threat_assets (
    org_id     TEXT NOT NULL,
    indicator  TEXT NOT NULL,
    asset      TEXT NOT NULL,
    PRIMARY KEY (org_id, indicator, asset)
);

CREATE TABLE threat_indicators (
    org_id        TEXT NOT NULL,
    indicator     TEXT NOT NULL,
    type          TEXT NOT NULL,
    max_severity  BIGINT NOT NULL,
    n             BIGINT NOT NULL,
    first_seen    BIGINT NOT NULL,
    last_seen     BIGINT NOT NULL, assets BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, indicator)
);

CREATE TABLE tickets (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY, -- SQLite's implicit row id, which queries order ties by
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    created_by        TEXT NOT NULL,
    subject           TEXT NOT NULL,
    description       TEXT NOT NULL,
    priority          TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high')),
    status            TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'escalated', 'resolved', 'closed')),
    assignee          TEXT,
    triage            TEXT,
    resolution_steps  TEXT,
    triage_run_id     TEXT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    resolved_at       BIGINT
, alert_id TEXT);

CREATE TABLE ticket_escalations (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    confidence  DOUBLE PRECISION,
    actor       TEXT NOT NULL,
    at          BIGINT NOT NULL
);

CREATE TABLE ticket_history (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id  TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    field      TEXT NOT NULL,
    old_value  TEXT,
    new_value  TEXT,
    actor      TEXT NOT NULL,
    note       TEXT NOT NULL DEFAULT '',
    at         BIGINT NOT NULL
);

CREATE TABLE ticket_messages (
    id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    author      TEXT NOT NULL,
    author_kind TEXT NOT NULL CHECK (author_kind IN ('user', 'apikey', 'agent')),
    body        TEXT NOT NULL,
    at          BIGINT NOT NULL
);

CREATE TABLE user_tokens (
    hash        BYTEA PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('reset', 'verify')),
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT,
    created_at  BIGINT NOT NULL
);



CREATE INDEX agent_runs_durations ON agent_runs (agent, finished_at) WHERE status = 'completed';

CREATE INDEX agent_runs_org_agent ON agent_runs (org_id, agent, seq);

CREATE INDEX agent_runs_org_status ON agent_runs (org_id, status, agent);

CREATE INDEX agent_runs_queued ON agent_runs (seq) WHERE status = 'queued';

CREATE INDEX agent_runs_queued_org ON agent_runs (org_id, seq) WHERE status = 'queued';

CREATE INDEX agent_runs_running ON agent_runs (seq) WHERE status = 'running';

CREATE INDEX agent_turns_turn ON agent_turns (turn);

CREATE INDEX alert_escalations_due ON alert_escalations (next_at);

CREATE INDEX alert_history_alert ON alert_history (alert_id, id);

CREATE INDEX alert_suppressions_org ON alert_suppressions (org_id, expires_at);

CREATE INDEX alerts_attacker ON alerts (org_id, attacker, last_seen) WHERE incident_id IS NOT NULL;

CREATE INDEX alerts_incident ON alerts (incident_id) WHERE incident_id IS NOT NULL;

CREATE UNIQUE INDEX alerts_open_fingerprint ON alerts (org_id, fingerprint) WHERE status = 'open';

CREATE INDEX alerts_open_system ON alerts (category)
    WHERE status = 'open' AND category IN ('sensor_silent', 'credential_expired', 'notification_failing');

CREATE INDEX alerts_org_assignee ON alerts (org_id, assignee, last_seen) WHERE assignee IS NOT NULL;

CREATE INDEX alerts_org_created ON alerts (org_id, created_at);

CREATE INDEX alerts_org_open_critical ON alerts (org_id, created_at) WHERE status = 'open' AND severity = 4;

CREATE INDEX alerts_org_recent ON alerts (org_id, last_seen);

CREATE INDEX alerts_org_resolved ON alerts (org_id, resolved_at) WHERE resolved_at IS NOT NULL;

CREATE INDEX alerts_org_status ON alerts (org_id, status, last_seen);

CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

CREATE INDEX asset_products_asset ON asset_products (asset_id);

CREATE INDEX assets_identifier ON assets (org_id, identifier) WHERE identifier <> '';

CREATE INDEX audit_log_org ON audit_log (org_id, id);

CREATE INDEX compliance_audits_org ON compliance_audits (org_id, id);

CREATE UNIQUE INDEX compliance_gaps_open ON compliance_gaps (org_id, framework, control_id) WHERE status = 'open';

CREATE INDEX compliance_gaps_org ON compliance_gaps (org_id, status, framework);

CREATE INDEX compliance_remediations_gap ON compliance_remediations (org_id, gap_id, id);

CREATE INDEX cve_watchlist_cve ON cve_watchlist (cve_id, org_id);

CREATE INDEX dns_queries_org_ts ON dns_queries (org_id, ts);

CREATE INDEX email_claims_email ON email_claims (email, created_at);

CREATE INDEX events_alert ON events (alert_id) WHERE alert_id IS NOT NULL;

CREATE UNIQUE INDEX events_legacy_id ON events (legacy_id) WHERE legacy_id IS NOT NULL;

CREATE INDEX events_org_dst_ip ON events (org, dst_ip, ts) WHERE dst_ip IS NOT NULL;

CREATE INDEX events_org_severity_ts ON events (org, severity, ts);

CREATE INDEX events_org_src_ip ON events (org, src_ip, ts) WHERE src_ip IS NOT NULL;

CREATE INDEX events_org_ts ON events (org, ts);

CREATE INDEX events_org_user ON events (org, user_name, ts) WHERE user_name IS NOT NULL;

CREATE INDEX finding_changes_finding ON finding_changes (finding_id, id);

CREATE INDEX findings_asset ON findings (asset_id);

CREATE INDEX findings_cve ON findings (cve_id, org_id);

CREATE INDEX findings_org_status ON findings (org_id, status, cvss);

CREATE INDEX incidents_org ON incidents (org_id, created_at);

CREATE INDEX intel_changes_cve ON intel_changes (cve_id, id);

CREATE INDEX intel_changes_import ON intel_changes (import_id, cve_id);

CREATE INDEX intel_cve_products_cve ON intel_cve_products (cve_id);

CREATE INDEX intel_cve_products_product ON intel_cve_products (product);

CREATE INDEX intel_cves_product ON intel_cves (vendor, product);

CREATE INDEX intel_imports_format ON intel_imports (format, started_at);

CREATE UNIQUE INDEX intel_imports_running ON intel_imports (status) WHERE status = 'running';

CREATE INDEX invites_org ON invites (org_id, created_at);

CREATE INDEX lead_history_lead ON lead_history (lead_id, id);

CREATE INDEX leads_org_score ON leads (org_id, score DESC, id);

CREATE INDEX leads_org_updated ON leads (org_id, updated_at DESC, id);

CREATE INDEX member_clients_provider ON member_clients (provider_id, user_id);

CREATE INDEX memberships_org ON memberships (org_id, role);

CREATE INDEX notification_deliveries_alert ON notification_deliveries (alert_id) WHERE alert_id != '';

CREATE INDEX notification_deliveries_due ON notification_deliveries (next_at) WHERE status = 'pending';

CREATE INDEX notification_deliveries_group ON notification_deliveries (group_key, created_at) WHERE group_key IS NOT NULL;

CREATE INDEX notification_deliveries_org ON notification_deliveries (org_id, created_at);

CREATE INDEX notification_rule_channels_channel ON notification_rule_channels (channel_id);

CREATE INDEX notifications_org_created ON notifications (org_id, created_at);

CREATE INDEX orgs_provider ON orgs (provider_id, name) WHERE provider_id IS NOT NULL;

CREATE INDEX outbox_pending ON outbox (status, id);

CREATE INDEX prospect_merges_prospect ON prospect_merges (prospect_id, id);

CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

CREATE INDEX threat_indicators_recent ON threat_indicators (org_id, last_seen);

CREATE INDEX ticket_escalations_ticket ON ticket_escalations (ticket_id, id);

CREATE INDEX ticket_history_ticket ON ticket_history (ticket_id, id);

CREATE INDEX ticket_messages_ticket ON ticket_messages (ticket_id, id);

CREATE UNIQUE INDEX tickets_alert ON tickets (alert_id) WHERE alert_id IS NOT NULL;

CREATE INDEX tickets_org_created ON tickets (org_id, created_at);

CREATE INDEX tickets_org_status ON tickets (org_id, status, created_at);

CREATE INDEX tickets_untriaged ON tickets (triage_run_id) WHERE triage IS NULL AND status = 'open';

CREATE INDEX user_tokens_user ON user_tokens (user_id, purpose);

CREATE INDEX users_org ON users (org_id);

-- Event text search. SQLite's is an FTS5 table of each event's tokens
-- (rowid: the event's seq), searched as event_text(query): the query's
-- tokens in double quotes, all of which an event must hold. Here the same
-- rows, the tokens GIN-indexed as an array, and a function of that name
-- answering the same query, so the store's SQL is one for both.
CREATE TABLE event_text (
    rowid  BIGINT PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    words  TEXT NOT NULL
);
CREATE INDEX event_text_words ON event_text USING GIN (string_to_array(words, ' '));
CREATE FUNCTION event_text(query TEXT) RETURNS TABLE (rowid BIGINT) LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT t.rowid FROM event_text t WHERE string_to_array(t.words, ' ') @> string_to_array(replace(query, '"', ''), ' ')
        AND query <> '' -- no words: no event (an empty array is in every row's)
$$;

-- alert_counts follows alerts, as SQLite's three triggers keep it.
CREATE FUNCTION alerts_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE alert_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status AND severity = OLD.severity;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO alert_counts (org_id, status, severity, n) VALUES (NEW.org_id, NEW.status, NEW.severity, 1)
            ON CONFLICT (org_id, status, severity) DO UPDATE SET n = alert_counts.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER alerts_counted_delete AFTER DELETE ON alerts FOR EACH ROW EXECUTE FUNCTION alerts_counted();
CREATE TRIGGER alerts_counted_insert AFTER INSERT ON alerts FOR EACH ROW EXECUTE FUNCTION alerts_counted();
CREATE TRIGGER alerts_counted_update AFTER UPDATE OF status, severity ON alerts FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.severity IS DISTINCT FROM NEW.severity) EXECUTE FUNCTION alerts_counted();

-- Every organization has its number, as SQLite's orgs_number trigger gives it.
CREATE FUNCTION orgs_number() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO org_numbers (org_id) VALUES (NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER orgs_number AFTER INSERT ON orgs FOR EACH ROW EXECUTE FUNCTION orgs_number();

-- SQLite's scalar max(a, b) and min(a, b) (NULL when either is), which
-- the store's SQL uses; PostgreSQL keeps its aggregates of one argument.
CREATE FUNCTION max(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE GREATEST(a, b) END';
CREATE FUNCTION min(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE LEAST(a, b) END';

-- SQLite's instr(haystack, needle), and its NOCASE collation (SQLite's
-- folds ASCII letters only; this one, ICU's, all letters).
CREATE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS INTEGER LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT strpos(haystack, needle)';
CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

-- SQLite's group_concat(x): the values as text, joined by commas.
CREATE FUNCTION group_concat_step(acc TEXT, v ANYELEMENT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN CAST(v AS TEXT) ELSE acc || '','' || CAST(v AS TEXT) END';
CREATE AGGREGATE group_concat(ANYELEMENT) (SFUNC = group_concat_step, STYPE = TEXT);

-- The rows SQLite's migrations seed; event_id_key's secret is written with
-- the baseline by the migration runner, from crypto/rand.
INSERT INTO fold_state (id, events_seq, events_hw) VALUES (1, 0, 0);
INSERT INTO event_text_deletes (id, n) VALUES (1, 0);

-- migration: 40
-- Several nodes on one database (PostgreSQL; the tables exist on SQLite
-- too, where one process uses them alone).
-- cluster_epochs counts the changes to what nodes hold in memory (the
-- auth cache, detection rules): a node that missed a notification sees the
-- count move. org_numbers.alert_gen counts the changes to an
-- organization's alerts and events (each ingest, each status change): a
-- node keeps its alert memory of the organization only while the count is
-- the one it left. A claimed agent run carries the claim's token and the
-- time its lease ends: the claiming node renews it while it runs, and
-- another node takes the run over once it lapses. rate_buckets are the
-- rate limits the nodes share (sign-in, registration, reset, agent runs):
-- one token bucket per bucket name and key.
CREATE TABLE cluster_epochs (
    topic TEXT PRIMARY KEY,
    n     INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO cluster_epochs (topic) VALUES ('auth'), ('detection');
ALTER TABLE agent_runs ADD COLUMN claim TEXT;
ALTER TABLE agent_runs ADD COLUMN lease_until INTEGER;
ALTER TABLE org_numbers ADD COLUMN alert_gen INTEGER NOT NULL DEFAULT 0;
CREATE TABLE rate_buckets (
    bucket TEXT NOT NULL,
    key    TEXT NOT NULL,
    tokens REAL NOT NULL,
    at     INTEGER NOT NULL,
    ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
    PRIMARY KEY (bucket, key)
) STRICT;
-- postgres:
CREATE TABLE cluster_epochs (
    topic TEXT PRIMARY KEY,
    n     BIGINT NOT NULL DEFAULT 0
);
INSERT INTO cluster_epochs (topic) VALUES ('auth'), ('detection');
ALTER TABLE agent_runs ADD COLUMN claim TEXT;
ALTER TABLE agent_runs ADD COLUMN lease_until BIGINT;
ALTER TABLE org_numbers ADD COLUMN alert_gen BIGINT NOT NULL DEFAULT 0;
CREATE TABLE rate_buckets (
    bucket TEXT NOT NULL,
    key    TEXT NOT NULL,
    tokens DOUBLE PRECISION NOT NULL,
    at     BIGINT NOT NULL,
    ok     BIGINT NOT NULL CHECK (ok IN (0, 1)),
    PRIMARY KEY (bucket, key)
);
