-- Garrison's schema as a freshly migrated database holds it: generated from
-- sqlite_schema by TestSchemaSnapshot (store/schemasnapshot_test.go); do not edit.
-- schema.sql, at the root, is the migrations that build it.
-- Schema version (PRAGMA user_version): 40

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
, claim TEXT, lease_until INTEGER) STRICT;
CREATE INDEX agent_runs_durations ON agent_runs (agent, finished_at) WHERE status = 'completed';
CREATE INDEX agent_runs_org_agent ON agent_runs (org_id, agent, seq);
CREATE INDEX agent_runs_org_status ON agent_runs (org_id, status, agent);
CREATE INDEX agent_runs_queued ON agent_runs (seq) WHERE status = 'queued';
CREATE INDEX agent_runs_queued_org ON agent_runs (org_id, seq) WHERE status = 'queued';
CREATE INDEX agent_runs_running ON agent_runs (seq) WHERE status = 'running';

CREATE TABLE agent_turns (
    org_id  TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    turn    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX agent_turns_turn ON agent_turns (turn);

CREATE TABLE alert_counts (
    org_id    TEXT NOT NULL,
    status    TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, status, severity)
) STRICT, WITHOUT ROWID;

CREATE TABLE alert_escalations (
    alert_id  TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    rule_id   TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    sent      INTEGER NOT NULL DEFAULT 0,
    next_at   INTEGER NOT NULL,
    PRIMARY KEY (alert_id, rule_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX alert_escalations_due ON alert_escalations (next_at);

CREATE TABLE alert_history (
    id          INTEGER PRIMARY KEY,
    alert_id    TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    note        TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
, action TEXT NOT NULL DEFAULT 'status'
    CHECK (action IN ('status', 'assign', 'acknowledge')), disposition TEXT, assignee TEXT) STRICT;
CREATE INDEX alert_history_alert ON alert_history (alert_id, id);

CREATE TABLE alert_signals (
    seq       INTEGER PRIMARY KEY,
    org_id    TEXT NOT NULL,
    alert_id  TEXT NOT NULL,
    signal    TEXT NOT NULL CHECK (signal IN ('opened', 'resolved', 'acknowledged')),
    at        INTEGER NOT NULL
) STRICT;

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
, counted_through INTEGER NOT NULL DEFAULT 0, assignee TEXT, acknowledged_at INTEGER, acknowledged_by TEXT, disposition TEXT CHECK (disposition IN ('true_positive', 'false_positive', 'benign', 'duplicate')), ticket_id TEXT, rule TEXT, attacker TEXT, incident_id TEXT) STRICT;
CREATE INDEX alerts_attacker ON alerts (org_id, attacker, last_seen) WHERE incident_id IS NOT NULL;
CREATE TRIGGER alerts_counted_delete AFTER DELETE ON alerts BEGIN
    UPDATE alert_counts SET n = n - 1 WHERE org_id = OLD.org_id AND status = OLD.status AND severity = OLD.severity;
END;
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

CREATE TABLE asset_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    asset_id    TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, asset_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX asset_products_asset ON asset_products (asset_id);

CREATE TABLE asset_rollup (
    org_id        TEXT NOT NULL,
    day           INTEGER NOT NULL,
    asset         TEXT NOT NULL,
    n             INTEGER NOT NULL,
    max_severity  INTEGER NOT NULL,
    PRIMARY KEY (org_id, day, asset)
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
    updated_at INTEGER NOT NULL, internet_facing INTEGER NOT NULL DEFAULT 0, identifier TEXT NOT NULL DEFAULT '',
    UNIQUE (org_id, hostname)
) STRICT;
CREATE INDEX assets_identifier ON assets (org_id, identifier) WHERE identifier <> '';

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

CREATE TABLE cluster_epochs (
    topic TEXT PRIMARY KEY,
    n     INTEGER NOT NULL DEFAULT 0
) STRICT;

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

CREATE TABLE cve_watchlist (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    cve_id     TEXT NOT NULL,
    added_by   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (org_id, cve_id)
) STRICT;
CREATE INDEX cve_watchlist_cve ON cve_watchlist (cve_id, org_id);

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

CREATE TABLE dns_blocked_domains (
    org_id     TEXT NOT NULL,
    domain     TEXT NOT NULL,
    category   TEXT NOT NULL,
    n          INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (org_id, domain)
) STRICT, WITHOUT ROWID;

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

CREATE TABLE dns_rollup (
    org_id    TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    category  TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, hour, category)
) STRICT, WITHOUT ROWID;

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

CREATE TABLE event_blocks (
    block   INTEGER PRIMARY KEY,
    min_ts  INTEGER NOT NULL,
    max_ts  INTEGER NOT NULL
) STRICT;

CREATE TABLE event_counts (
    org_id    TEXT NOT NULL,
    type      TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, type, severity)
) STRICT, WITHOUT ROWID;

CREATE TABLE event_id_key (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    key  BLOB NOT NULL CHECK (length(key) = 16)
) STRICT;

CREATE TABLE event_originals (
    seq       INTEGER PRIMARY KEY REFERENCES events(seq) ON DELETE CASCADE,
    original  TEXT NOT NULL
) STRICT;

CREATE TABLE event_rollup (
    org_id    TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    type      TEXT NOT NULL,
    severity  INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, hour, type, severity)
) STRICT, WITHOUT ROWID;

CREATE TABLE event_sources (
    org_id     TEXT NOT NULL,
    source     TEXT NOT NULL,
    n          INTEGER NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (org_id, source)
) STRICT, WITHOUT ROWID;

CREATE VIRTUAL TABLE event_text USING fts5(words, content='', columnsize=0, detail=none,
    tokenize="unicode61 tokenchars '_'");

CREATE TABLE event_text_backfill (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    next_seq  INTEGER NOT NULL
) STRICT;

CREATE TABLE 'event_text_config'(k PRIMARY KEY, v) WITHOUT ROWID;

CREATE TABLE 'event_text_data'(id INTEGER PRIMARY KEY, block BLOB);

CREATE TABLE event_text_deletes (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    n   INTEGER NOT NULL
) STRICT;

CREATE TABLE 'event_text_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

CREATE TABLE "events" (
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
CREATE INDEX events_alert ON events (alert_id) WHERE alert_id IS NOT NULL;
CREATE UNIQUE INDEX events_legacy_id ON events (legacy_id) WHERE legacy_id IS NOT NULL;
CREATE INDEX events_org_dst_ip ON events (org, dst_ip, ts) WHERE dst_ip IS NOT NULL;
CREATE INDEX events_org_severity_ts ON events (org, severity, ts);
CREATE INDEX events_org_src_ip ON events (org, src_ip, ts) WHERE src_ip IS NOT NULL;
CREATE INDEX events_org_ts ON events (org, ts);
CREATE INDEX events_org_user ON events (org, user_name, ts) WHERE user_name IS NOT NULL;

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
CREATE INDEX findings_asset ON findings (asset_id);
CREATE INDEX findings_cve ON findings (cve_id, org_id);
CREATE INDEX findings_org_status ON findings (org_id, status, cvss);

CREATE TABLE fold_state (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    events_seq  INTEGER NOT NULL
, events_hw INTEGER NOT NULL DEFAULT 0) STRICT;

CREATE TABLE incidents (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    attacker    TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX incidents_org ON incidents (org_id, created_at);

CREATE TABLE indicator_rollup (
    org_id    TEXT NOT NULL,
    day       INTEGER NOT NULL,
    indicator TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (org_id, day, indicator)
) STRICT, WITHOUT ROWID;

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

CREATE TABLE intel_cve_match (
    cve_id  TEXT PRIMARY KEY,
    targets BLOB NOT NULL,
    facts   TEXT NOT NULL
) STRICT;

CREATE TABLE intel_cve_products (
    vendor      TEXT NOT NULL,
    product     TEXT NOT NULL,
    cve_id      TEXT NOT NULL,
    PRIMARY KEY (vendor, product, cve_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX intel_cve_products_cve ON intel_cve_products (cve_id);
CREATE INDEX intel_cve_products_product ON intel_cve_products (product);

CREATE TABLE intel_cves (
    id         TEXT PRIMARY KEY,
    nvd        BLOB,
    cve5       BLOB,
    view       TEXT NOT NULL,
    vendor     TEXT NOT NULL DEFAULT '',
    product    TEXT NOT NULL DEFAULT '',
    view_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX intel_cves_product ON intel_cves (vendor, product);

CREATE TABLE intel_epss (
    cve_id     TEXT PRIMARY KEY,
    score      REAL NOT NULL,
    percentile REAL NOT NULL,
    score_date TEXT NOT NULL
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
, beat_at INTEGER NOT NULL DEFAULT 0) STRICT;
CREATE INDEX intel_imports_format ON intel_imports (format, started_at);
CREATE UNIQUE INDEX intel_imports_running ON intel_imports (status) WHERE status = 'running';

CREATE TABLE intel_kev (
    cve_id TEXT PRIMARY KEY,
    data   TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE intel_notified (
    org_id    TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    import_id TEXT NOT NULL,
    at        INTEGER NOT NULL,
    PRIMARY KEY (org_id, import_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE intel_sync (
    url           TEXT PRIMARY KEY,
    etag          TEXT NOT NULL,
    last_modified TEXT NOT NULL,
    checked_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE intel_techniques (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    tactics    TEXT NOT NULL,
    deprecated INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE "invites" (
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
CREATE INDEX invites_org ON invites (org_id, created_at);

CREATE TABLE key_notices (
    key_id  TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
    notice  INTEGER NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (key_id, notice)
) STRICT, WITHOUT ROWID;

CREATE TABLE "lead_history" (
    id      INTEGER PRIMARY KEY,
    lead_id TEXT NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
    kind    TEXT NOT NULL CHECK (kind IN ('status', 'score', 'client')),
    from_v  TEXT,
    to_v    TEXT NOT NULL,
    note    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      INTEGER NOT NULL
) STRICT;
CREATE INDEX lead_history_lead ON lead_history (lead_id, id);

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

CREATE TABLE match_queue (
    kind        TEXT NOT NULL CHECK (kind IN ('asset', 'cve', 'all')),
    key         TEXT NOT NULL,
    queued_at   INTEGER NOT NULL,
    PRIMARY KEY (kind, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE member_clients (
    user_id     TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    client_id   TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, client_id),
    FOREIGN KEY (user_id, provider_id) REFERENCES memberships(user_id, org_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX member_clients_provider ON member_clients (provider_id, user_id);

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
CREATE INDEX notification_deliveries_alert ON notification_deliveries (alert_id) WHERE alert_id != '';
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX notification_deliveries_group ON notification_deliveries (group_key, created_at) WHERE group_key IS NOT NULL;
CREATE INDEX notification_deliveries_org ON notification_deliveries (org_id, created_at);

CREATE TABLE notification_reads (
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    reader          TEXT NOT NULL,
    read_at         INTEGER NOT NULL,
    PRIMARY KEY (notification_id, reader)
) STRICT, WITHOUT ROWID;

CREATE TABLE notification_rule_channels (
    rule_id     TEXT NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
    channel_id  TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE RESTRICT,
    purpose     TEXT NOT NULL CHECK (purpose IN ('notify', 'escalate')),
    PRIMARY KEY (rule_id, purpose, channel_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX notification_rule_channels_channel ON notification_rule_channels (channel_id);

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

CREATE TABLE org_numbers (
    num     INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id  TEXT NOT NULL UNIQUE REFERENCES orgs(id) ON DELETE CASCADE
, alert_gen INTEGER NOT NULL DEFAULT 0) STRICT;

CREATE TABLE org_usage (
    org_id        TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    stored_bytes  INTEGER NOT NULL DEFAULT 0,
    warned_at     INTEGER
) STRICT, WITHOUT ROWID;

CREATE TABLE orgs (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    plan        TEXT NOT NULL CHECK (plan IN ('starter', 'pro', 'ultimate')),
    created_at  INTEGER NOT NULL
, storage_quota INTEGER, kind TEXT NOT NULL DEFAULT 'standalone' CHECK (kind IN ('standalone', 'provider', 'client')), provider_id TEXT REFERENCES orgs(id), plan_inherited INTEGER NOT NULL DEFAULT 0 CHECK (plan_inherited IN (0, 1)), retention_ms INTEGER) STRICT;
CREATE TRIGGER orgs_number AFTER INSERT ON orgs BEGIN
    INSERT INTO org_numbers (org_id) VALUES (NEW.id);
END;
CREATE INDEX orgs_provider ON orgs (provider_id, name) WHERE provider_id IS NOT NULL;

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

CREATE TABLE policy_adoptions (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    template_id TEXT NOT NULL,
    adopted_by  TEXT NOT NULL,
    adopted_at  INTEGER NOT NULL,
    PRIMARY KEY (org_id, template_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE prospect_merges (
    id          INTEGER PRIMARY KEY,
    prospect_id TEXT NOT NULL REFERENCES prospects(id) ON DELETE CASCADE,
    changes     TEXT NOT NULL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX prospect_merges_prospect ON prospect_merges (prospect_id, id);

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
    updated_at    INTEGER NOT NULL, search TEXT NOT NULL DEFAULT '',
    UNIQUE (org_id, domain)
) STRICT;

CREATE TABLE rate_buckets (
    bucket TEXT NOT NULL,
    key    TEXT NOT NULL,
    tokens REAL NOT NULL,
    at     INTEGER NOT NULL,
    ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
    PRIMARY KEY (bucket, key)
) STRICT;

CREATE TABLE reset_requests (
    id          INTEGER PRIMARY KEY,
    email       TEXT NOT NULL,
    created_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE revoked_tokens (
    jti         TEXT PRIMARY KEY,
    expires_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

CREATE TABLE threat_assets (
    org_id     TEXT NOT NULL,
    indicator  TEXT NOT NULL,
    asset      TEXT NOT NULL,
    PRIMARY KEY (org_id, indicator, asset)
) STRICT, WITHOUT ROWID;

CREATE TABLE threat_indicators (
    org_id        TEXT NOT NULL,
    indicator     TEXT NOT NULL,
    type          TEXT NOT NULL,
    max_severity  INTEGER NOT NULL,
    n             INTEGER NOT NULL,
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL, assets INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (org_id, indicator)
) STRICT, WITHOUT ROWID;
CREATE INDEX threat_indicators_recent ON threat_indicators (org_id, last_seen);

CREATE TABLE ticket_escalations (
    id          INTEGER PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    confidence  REAL,
    actor       TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX ticket_escalations_ticket ON ticket_escalations (ticket_id, id);

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

CREATE TABLE ticket_messages (
    id          INTEGER PRIMARY KEY,
    ticket_id   TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    author      TEXT NOT NULL,
    author_kind TEXT NOT NULL CHECK (author_kind IN ('user', 'apikey', 'agent')),
    body        TEXT NOT NULL,
    at          INTEGER NOT NULL
) STRICT;
CREATE INDEX ticket_messages_ticket ON ticket_messages (ticket_id, id);

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
, alert_id TEXT) STRICT;
CREATE UNIQUE INDEX tickets_alert ON tickets (alert_id) WHERE alert_id IS NOT NULL;
CREATE INDEX tickets_org_created ON tickets (org_id, created_at);
CREATE INDEX tickets_org_status ON tickets (org_id, status, created_at);
CREATE INDEX tickets_untriaged ON tickets (triage_run_id) WHERE triage IS NULL AND status = 'open';

CREATE TABLE user_tokens (
    hash        BLOB PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('reset', 'verify')),
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER,
    created_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX user_tokens_user ON user_tokens (user_id, purpose);

CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email             TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL,
    password_hash     TEXT NOT NULL,
    token_version     INTEGER NOT NULL DEFAULT 0,
    email_verified_at INTEGER,
    created_at        INTEGER NOT NULL
, origin TEXT NOT NULL DEFAULT 'signup'
    CHECK (origin IN ('signup', 'invite', 'key_invite', 'operator'))) STRICT;
CREATE INDEX users_org ON users (org_id);
