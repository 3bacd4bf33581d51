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
