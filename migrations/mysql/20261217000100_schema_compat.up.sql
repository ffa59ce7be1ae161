-- Which binaries may use this database (issue 35: safe rolling upgrades).
-- readable_from is the oldest schema level (the name of a migration) whose
-- binary can still work on this schema. Migrations within a release only
-- add, so it stays where it is; a release that drops or changes something
-- older binaries read moves it to its own level in that migration, and
-- older binaries then refuse the database (models.NewerSchemaError) instead
-- of half-using it. One row. Each statement can run again (the migration is
-- not transactional on MySQL).
CREATE TABLE IF NOT EXISTS kalends_schema (
    id INT NOT NULL PRIMARY KEY,
    readable_from VARCHAR(32) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

INSERT IGNORE INTO kalends_schema (id, readable_from) VALUES (1, '20261217000100');
