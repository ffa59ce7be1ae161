-- Leases: a named job runs on one instance at a time (the publisher of
-- scheduled records). The holder renews its lease before it expires; an
-- expired lease may be taken by another instance.
CREATE TABLE leases (
    name VARCHAR(64) NOT NULL PRIMARY KEY,
    holder VARCHAR(128) NOT NULL,
    expires_at DATETIME NOT NULL
);
