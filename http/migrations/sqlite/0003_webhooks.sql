-- Webhooks (DESIGN.md §7 "Webhooks"): subscriptions, an outbox of events, one
-- delivery per (event, endpoint) and every attempt; plus what the event kinds need:
-- each deployment's conversation history, deploy markers and health reports.

-- Registered endpoints. Deleting one keeps the row (its deliveries stay listable).
CREATE TABLE webhooks (
    id               TEXT PRIMARY KEY,
    org_id           TEXT NOT NULL,
    key_id           TEXT NOT NULL REFERENCES api_keys (id),
    url              TEXT NOT NULL,
    secret           TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    deleted_at       TEXT,
    last_delivery_at TEXT,
    failure_count    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_by_key ON webhooks (key_id, created_at);

-- The kinds each endpoint subscribed to.
CREATE TABLE webhook_kinds (
    webhook_id  TEXT NOT NULL REFERENCES webhooks (id),
    kind        TEXT NOT NULL,
    PRIMARY KEY (webhook_id, kind)
);
CREATE INDEX webhook_kinds_by_kind ON webhook_kinds (kind);

-- The outbox: one row per event, with the exact bytes every delivery sends.
CREATE TABLE webhook_events (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL,
    org_id         TEXT NOT NULL,
    deployment_id  TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    body           BLOB NOT NULL
);

-- One delivery per (event, endpoint). `endpoint` is a webhook id, or `ingest:` and the
-- session id for a delivery to an ingest request's webhook_url.
CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    event_id        TEXT NOT NULL REFERENCES webhook_events (id),
    endpoint        TEXT NOT NULL,
    webhook_id      TEXT REFERENCES webhooks (id),
    key_id          TEXT REFERENCES api_keys (id),
    url             TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    lease_token     TEXT,
    lease_until_ms  INTEGER,
    response_status INTEGER,
    error           TEXT,
    created_at      TEXT NOT NULL,
    last_attempt_at TEXT,
    completed_at    TEXT,
    UNIQUE (event_id, endpoint)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_ms);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);

-- Every attempt of a delivery. An attempt whose server died mid-way keeps no status
-- and is marked interrupted when the delivery is claimed again.
CREATE TABLE delivery_attempts (
    delivery_id     TEXT NOT NULL REFERENCES deliveries (id),
    attempt         INTEGER NOT NULL,
    started_at      TEXT NOT NULL,
    duration_ms     INTEGER,
    response_status INTEGER,
    error           TEXT,
    response_body   BLOB,
    PRIMARY KEY (delivery_id, attempt)
);

-- Each deployment's scored conversations, one row per conversation (a conversation
-- sent again replaces its row). Scores are the conversation-level dimension scores.
CREATE TABLE conversation_history (
    org_id          TEXT NOT NULL,
    deployment_id   TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    started_at_ms   INTEGER NOT NULL,
    human_turns     INTEGER NOT NULL,
    resolved        INTEGER NOT NULL,
    abandoned       INTEGER NOT NULL,
    release         TEXT,
    trust_calibration       REAL NOT NULL,
    frustration_buildup     REAL NOT NULL,
    dependency_drift        REAL NOT NULL,
    silent_abandonment_risk REAL NOT NULL,
    escalation_friction     REAL NOT NULL,
    comprehension_gap       REAL NOT NULL,
    PRIMARY KEY (org_id, deployment_id, conversation_id)
);
CREATE INDEX conversation_history_by_time ON conversation_history (org_id, deployment_id, started_at_ms);

-- Deploy markers: given through the API, or seen as a new release in event metadata.
CREATE TABLE deploys (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL,
    deployment_id  TEXT NOT NULL,
    release        TEXT,
    description    TEXT,
    source         TEXT NOT NULL CHECK (source IN ('api', 'metadata')),
    at_ms          INTEGER NOT NULL,
    created_at     TEXT NOT NULL,
    measured_at    TEXT,
    result         TEXT
);
CREATE INDEX deploys_by_deployment ON deploys (org_id, deployment_id, at_ms);

-- User Health Reports.
CREATE TABLE health_reports (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL,
    deployment_id  TEXT NOT NULL,
    period_start   TEXT NOT NULL,
    period_end     TEXT NOT NULL,
    trigger        TEXT NOT NULL CHECK (trigger IN ('schedule', 'request')),
    created_at     TEXT NOT NULL,
    report         TEXT NOT NULL
);
CREATE INDEX health_reports_by_deployment ON health_reports (org_id, deployment_id, created_at);
