-- A session started by a request that carried an `Idempotency-Key`: the key, and a
-- digest of the request (route and body), so that a repeat answers with this session
-- and a reuse for another request is refused. One session per key and API key.
ALTER TABLE sessions ADD COLUMN idempotency_key TEXT COLLATE "C";
ALTER TABLE sessions ADD COLUMN request_digest TEXT;
CREATE UNIQUE INDEX sessions_idempotency ON sessions (key_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
