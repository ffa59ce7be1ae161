-- Leases: a named job runs on one instance at a time (the publisher of
-- scheduled records). The holder renews its lease before it expires; an
-- expired lease may be taken by another instance. One DDL statement.
CREATE TABLE IF NOT EXISTS leases (
    name VARCHAR(64) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    holder VARCHAR(128) COLLATE utf8mb4_bin NOT NULL,
    expires_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
