-- Device cookies (OWASP's "device cookies"): a browser that signed in to an
-- account successfully gets a random token; the account-wide limit of failed
-- sign-ins does not refuse that browser. id is the SHA-256 (hex) of the
-- token, so a copy of the database lets nobody pass as a device.
CREATE TABLE signin_devices (
    id VARCHAR(64) PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL
);
--bun:split

CREATE INDEX signin_devices_user_idx ON signin_devices (user_id, created_at);
--bun:split

CREATE INDEX signin_devices_expires_idx ON signin_devices (expires_at);
