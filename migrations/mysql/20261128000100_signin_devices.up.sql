-- Device cookies (OWASP's "device cookies"): a browser that signed in to an
-- account successfully gets a random token; the account-wide limit of failed
-- sign-ins does not refuse that browser. id is the SHA-256 (hex) of the
-- token, so a copy of the database lets nobody pass as a device. One DDL
-- statement (indexes inline): applied and marked together.
CREATE TABLE IF NOT EXISTS signin_devices (
    id VARCHAR(64) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    user_id BIGINT NOT NULL,
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    KEY signin_devices_user_idx (user_id, created_at),
    KEY signin_devices_expires_idx (expires_at),
    CONSTRAINT signin_devices_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
