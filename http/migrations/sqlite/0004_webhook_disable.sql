-- An endpoint that failed every attempt for long enough is disabled: when its run of
-- failures began, and when and why it was disabled.
ALTER TABLE webhooks ADD COLUMN failing_since TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_at TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
