-- Webhooks (issue 34): endpoints read the change feed as an anonymous
-- reader, each from its own cursor; turning changes into deliveries and
-- moving the cursor is one transaction, so a committed change reaches every
-- matching endpoint at least once and a rolled-back one (no change row)
-- never does. Deliveries are the outbox a worker sends under a lease.
CREATE TABLE webhook_endpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url VARCHAR(2048) NOT NULL,
    description VARCHAR(255) NOT NULL DEFAULT '',
    events VARCHAR(1024) NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT 1,
    secret VARCHAR(64) NOT NULL,
    old_secret VARCHAR(64) NOT NULL DEFAULT '',
    old_secret_until DATETIME NULL,
    feed_pos INTEGER NOT NULL,
    failing_since DATETIME NULL,
    created_at DATETIME NOT NULL
);
--bun:split

CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    msg_id VARCHAR(40) NOT NULL,
    type VARCHAR(32) NOT NULL,
    kind VARCHAR(16) NOT NULL,
    record_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    status VARCHAR(12) NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at DATETIME NOT NULL,
    last_status INTEGER NOT NULL DEFAULT 0,
    last_ms INTEGER NOT NULL DEFAULT 0,
    last_response VARCHAR(255) NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
--bun:split

CREATE UNIQUE INDEX webhook_deliveries_msg_uq ON webhook_deliveries (msg_id);
--bun:split

CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_at);
--bun:split

CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, kind, record_id, status, id);
