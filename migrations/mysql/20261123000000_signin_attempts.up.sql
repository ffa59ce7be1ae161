-- Failed sign-in counters, per login and per address, shared by every
-- instance through the database. key_hash is the SHA-256 (hex) of the
-- normalised login or the address, so the table keeps no typed text; a
-- counter counts from window_start until expires_at, then starts again.
-- One DDL statement (indexes inline): applied and marked together.
CREATE TABLE IF NOT EXISTS signin_attempts (
    scope VARCHAR(16) COLLATE utf8mb4_bin NOT NULL,
    key_hash VARCHAR(64) COLLATE utf8mb4_bin NOT NULL,
    count INT NOT NULL,
    window_start DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    PRIMARY KEY (scope, key_hash),
    KEY signin_attempts_expires_idx (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
