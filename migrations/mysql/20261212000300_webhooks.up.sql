-- Webhooks (issue 34): endpoints read the change feed as an anonymous
-- reader, each from its own cursor; turning changes into deliveries and
-- moving the cursor is one transaction, so a committed change reaches every
-- matching endpoint at least once and a rolled-back one (no change row)
-- never does. Deliveries are the outbox a worker sends under a lease. Each
-- statement can run again (the migration is not transactional on MySQL).
CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    url VARCHAR(2048) NOT NULL,
    description VARCHAR(255) NOT NULL DEFAULT '',
    events VARCHAR(1024) NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT 1,
    secret VARCHAR(64) NOT NULL,
    old_secret VARCHAR(64) NOT NULL DEFAULT '',
    old_secret_until DATETIME NULL,
    feed_pos BIGINT NOT NULL,
    failing_since DATETIME NULL,
    created_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
--bun:split

CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    endpoint_id BIGINT NOT NULL,
    msg_id VARCHAR(40) NOT NULL,
    type VARCHAR(32) NOT NULL,
    kind VARCHAR(16) NOT NULL,
    record_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    body MEDIUMTEXT NOT NULL,
    status VARCHAR(12) NOT NULL,
    attempts INT NOT NULL DEFAULT 0,
    next_at DATETIME NOT NULL,
    last_status INT NOT NULL DEFAULT 0,
    last_ms INT NOT NULL DEFAULT 0,
    last_response VARCHAR(255) NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    UNIQUE KEY webhook_deliveries_msg_uq (msg_id),
    KEY webhook_deliveries_due_idx (status, next_at),
    KEY webhook_deliveries_endpoint_idx (endpoint_id, kind, record_id, status, id),
    CONSTRAINT webhook_deliveries_endpoint_fk FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
