-- Undertone's SQLite schema, version 1. Times are RFC 3339 text in UTC unless the
-- column name ends in _ms (unix milliseconds, compared by the queue).

-- API keys. Only the SHA-256 of a key is stored, with its first characters for display.
CREATE TABLE api_keys (
    id                 TEXT PRIMARY KEY,
    org_id             TEXT NOT NULL,
    name               TEXT NOT NULL,
    scope              TEXT NOT NULL CHECK (scope IN ('read-only', 'read-write')),
    key_digest         BLOB NOT NULL UNIQUE,
    display_prefix     TEXT NOT NULL,
    delivery_secret    TEXT NOT NULL,
    per_hour           INTEGER NOT NULL,
    per_day            INTEGER NOT NULL,
    drift_per_hour     INTEGER NOT NULL,
    created_at         TEXT NOT NULL,
    revoked_at         TEXT
);

-- One row per (key, window kind): the current fixed window and its count.
CREATE TABLE rate_windows (
    key_id        TEXT NOT NULL REFERENCES api_keys (id),
    kind          TEXT NOT NULL,
    window_start  INTEGER NOT NULL,
    used          INTEGER NOT NULL,
    PRIMARY KEY (key_id, kind)
);

-- Ingest and drift sessions, with their results once complete.
CREATE TABLE sessions (
    id                     TEXT PRIMARY KEY,
    kind                   TEXT NOT NULL CHECK (kind IN ('ingest', 'drift')),
    org_id                 TEXT NOT NULL,
    key_id                 TEXT NOT NULL REFERENCES api_keys (id),
    deployment_id          TEXT,
    event_count            INTEGER NOT NULL,
    status                 TEXT NOT NULL
                           CHECK (status IN ('received', 'processing', 'complete', 'failed')),
    webhook_url            TEXT,
    labels                 TEXT,
    created_at             TEXT NOT NULL,
    completed_at           TEXT,
    error                  TEXT,
    environment_type       TEXT,
    plain_summary          TEXT,
    plain_recommendations  TEXT,
    condensed              TEXT,
    full_output            TEXT,
    completions            INTEGER NOT NULL DEFAULT 0
);

-- The events of a session: the validated request body, as received.
CREATE TABLE session_inputs (
    session_id  TEXT PRIMARY KEY REFERENCES sessions (id),
    body        BLOB NOT NULL
);

-- Pending work. A row lives from ingest until its session is complete or failed.
CREATE TABLE jobs (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     TEXT NOT NULL UNIQUE REFERENCES sessions (id),
    kind           TEXT NOT NULL,
    leased         INTEGER NOT NULL DEFAULT 0,
    attempts       INTEGER NOT NULL DEFAULT 0,
    lease_token    TEXT,
    lease_until_ms INTEGER
);
CREATE INDEX jobs_ready ON jobs (leased, seq);
