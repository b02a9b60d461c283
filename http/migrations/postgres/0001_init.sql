-- Undertone's PostgreSQL schema, version 1: the same tables as the SQLite schema
-- (migrations/sqlite), with PostgreSQL types. Columns ending in _ms are unix
-- milliseconds, compared by the queues; other times are timestamptz. Identifiers
-- are COLLATE "C": they sort by bytes, as SQLite sorts them, whatever the
-- database's locale.

-- API keys. Only the SHA-256 of a key is stored, with its first characters for display.
CREATE TABLE api_keys (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    org_id             TEXT COLLATE "C" NOT NULL,
    name               TEXT NOT NULL,
    scope              TEXT NOT NULL CHECK (scope IN ('read-only', 'read-write')),
    key_digest         BYTEA NOT NULL UNIQUE,
    display_prefix     TEXT NOT NULL,
    delivery_secret    TEXT NOT NULL,
    per_hour           BIGINT NOT NULL,
    per_day            BIGINT NOT NULL,
    drift_per_hour     BIGINT NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    revoked_at         TIMESTAMPTZ
);

-- One row per (key, window kind): the current fixed window and its count. Charges
-- lock the key's row in api_keys first, so every process counts against one limit.
CREATE TABLE rate_windows (
    key_id        TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id),
    kind          TEXT NOT NULL,
    window_start  BIGINT NOT NULL,
    used          BIGINT NOT NULL,
    PRIMARY KEY (key_id, kind)
);

-- Ingest and drift sessions, with their results once complete.
CREATE TABLE sessions (
    id                     TEXT COLLATE "C" PRIMARY KEY,
    kind                   TEXT NOT NULL CHECK (kind IN ('ingest', 'drift')),
    org_id                 TEXT COLLATE "C" NOT NULL,
    key_id                 TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id),
    deployment_id          TEXT COLLATE "C",
    event_count            BIGINT NOT NULL,
    status                 TEXT NOT NULL
                           CHECK (status IN ('received', 'processing', 'complete', 'failed')),
    webhook_url            TEXT,
    labels                 TEXT,
    created_at             TIMESTAMPTZ NOT NULL,
    completed_at           TIMESTAMPTZ,
    error                  TEXT,
    environment_type       TEXT,
    plain_summary          TEXT,
    plain_recommendations  TEXT,
    condensed              TEXT,
    -- The result, LZ4-compressed (a 1000-event result is about 1.2 MB of JSON).
    full_output_lz4        BYTEA,
    completions            BIGINT NOT NULL DEFAULT 0
);

-- The events of a session: the validated request body, as received.
CREATE TABLE session_inputs (
    session_id  TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions (id),
    body        BYTEA NOT NULL
);

-- Pending work. A row lives from ingest until its session is complete or failed;
-- workers of every process claim rows with FOR UPDATE SKIP LOCKED and a lease.
CREATE TABLE jobs (
    seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id     TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES sessions (id),
    kind           TEXT NOT NULL,
    leased         BOOLEAN NOT NULL DEFAULT FALSE,
    attempts       BIGINT NOT NULL DEFAULT 0,
    lease_token    TEXT,
    lease_until_ms BIGINT
);
CREATE INDEX jobs_ready ON jobs (leased, seq);

-- Registered endpoints. Deleting one keeps the row (its deliveries stay listable).
CREATE TABLE webhooks (
    id               TEXT COLLATE "C" PRIMARY KEY,
    org_id           TEXT COLLATE "C" NOT NULL,
    key_id           TEXT COLLATE "C" NOT NULL REFERENCES api_keys (id),
    url              TEXT NOT NULL,
    secret           TEXT NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    deleted_at       TIMESTAMPTZ,
    last_delivery_at TIMESTAMPTZ,
    failure_count    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_by_key ON webhooks (key_id, created_at);

-- The kinds each endpoint subscribed to.
CREATE TABLE webhook_kinds (
    webhook_id  TEXT COLLATE "C" NOT NULL REFERENCES webhooks (id),
    kind        TEXT NOT NULL,
    PRIMARY KEY (webhook_id, kind)
);
CREATE INDEX webhook_kinds_by_kind ON webhook_kinds (kind);

-- The outbox: one row per event, with the exact bytes every delivery sends.
CREATE TABLE webhook_events (
    id             TEXT COLLATE "C" PRIMARY KEY,
    kind           TEXT NOT NULL,
    org_id         TEXT COLLATE "C" NOT NULL,
    deployment_id  TEXT COLLATE "C" NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    body           BYTEA NOT NULL
);

-- One delivery per (event, endpoint). `endpoint` is a webhook id, or `ingest:` and the
-- session id for a delivery to an ingest request's webhook_url.
CREATE TABLE deliveries (
    id              TEXT COLLATE "C" PRIMARY KEY,
    event_id        TEXT COLLATE "C" NOT NULL REFERENCES webhook_events (id),
    endpoint        TEXT COLLATE "C" NOT NULL,
    webhook_id      TEXT COLLATE "C" REFERENCES webhooks (id),
    key_id          TEXT COLLATE "C" REFERENCES api_keys (id),
    url             TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT NOT NULL,
    lease_token     TEXT,
    lease_until_ms  BIGINT,
    response_status BIGINT,
    error           TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    last_attempt_at TIMESTAMPTZ,
    completed_at    TIMESTAMPTZ,
    UNIQUE (event_id, endpoint)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_ms);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);

-- Every attempt of a delivery. An attempt whose server died mid-way keeps no status
-- and is marked interrupted when the delivery is claimed again.
CREATE TABLE delivery_attempts (
    delivery_id     TEXT COLLATE "C" NOT NULL REFERENCES deliveries (id),
    attempt         BIGINT NOT NULL,
    started_at      TIMESTAMPTZ NOT NULL,
    duration_ms     BIGINT,
    response_status BIGINT,
    error           TEXT,
    response_body   BYTEA,
    PRIMARY KEY (delivery_id, attempt)
);

-- Each deployment's scored conversations, one row per conversation (a conversation
-- sent again replaces its row). Scores are the conversation-level dimension scores.
CREATE TABLE conversation_history (
    org_id          TEXT COLLATE "C" NOT NULL,
    deployment_id   TEXT COLLATE "C" NOT NULL,
    conversation_id TEXT COLLATE "C" NOT NULL,
    session_id      TEXT COLLATE "C" NOT NULL,
    started_at_ms   BIGINT NOT NULL,
    human_turns     BIGINT NOT NULL,
    resolved        BOOLEAN NOT NULL,
    abandoned       BOOLEAN NOT NULL,
    release         TEXT,
    trust_calibration       DOUBLE PRECISION NOT NULL,
    frustration_buildup     DOUBLE PRECISION NOT NULL,
    dependency_drift        DOUBLE PRECISION NOT NULL,
    silent_abandonment_risk DOUBLE PRECISION NOT NULL,
    escalation_friction     DOUBLE PRECISION NOT NULL,
    comprehension_gap       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (org_id, deployment_id, conversation_id)
);
CREATE INDEX conversation_history_by_time
    ON conversation_history (org_id, deployment_id, started_at_ms);
CREATE INDEX conversation_history_active ON conversation_history (started_at_ms);

-- Deploy markers: given through the API, or seen as a new release in event metadata.
CREATE TABLE deploys (
    id             TEXT COLLATE "C" PRIMARY KEY,
    org_id         TEXT COLLATE "C" NOT NULL,
    deployment_id  TEXT COLLATE "C" NOT NULL,
    release        TEXT,
    description    TEXT,
    source         TEXT NOT NULL CHECK (source IN ('api', 'metadata')),
    at_ms          BIGINT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    measured_at    TIMESTAMPTZ,
    result         TEXT
);
CREATE INDEX deploys_by_deployment ON deploys (org_id, deployment_id, at_ms);

-- User Health Reports.
CREATE TABLE health_reports (
    id             TEXT COLLATE "C" PRIMARY KEY,
    org_id         TEXT COLLATE "C" NOT NULL,
    deployment_id  TEXT COLLATE "C" NOT NULL,
    period_start   TIMESTAMPTZ NOT NULL,
    period_end     TIMESTAMPTZ NOT NULL,
    trigger        TEXT NOT NULL CHECK (trigger IN ('schedule', 'request')),
    created_at     TIMESTAMPTZ NOT NULL,
    report         TEXT NOT NULL
);
CREATE INDEX health_reports_by_deployment
    ON health_reports (org_id, deployment_id, created_at);
