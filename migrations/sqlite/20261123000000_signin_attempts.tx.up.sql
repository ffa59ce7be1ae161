-- Failed sign-in counters, per login and per address, shared by every
-- instance through the database. key_hash is the SHA-256 (hex) of the
-- normalised login or the address, so the table keeps no typed text; a
-- counter counts from window_start until expires_at, then starts again.
CREATE TABLE signin_attempts (
    scope VARCHAR(16) NOT NULL,
    key_hash VARCHAR(64) NOT NULL,
    count INTEGER NOT NULL,
    window_start DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    PRIMARY KEY (scope, key_hash)
);
--bun:split

CREATE INDEX signin_attempts_expires_idx ON signin_attempts (expires_at);
