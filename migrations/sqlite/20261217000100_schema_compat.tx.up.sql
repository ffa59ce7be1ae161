-- Which binaries may use this database (issue 35: safe rolling upgrades).
-- readable_from is the oldest schema level (the name of a migration) whose
-- binary can still work on this schema. Migrations within a release only
-- add, so it stays where it is; a release that drops or changes something
-- older binaries read moves it to its own level in that migration, and
-- older binaries then refuse the database (models.NewerSchemaError) instead
-- of half-using it. One row.
CREATE TABLE kalends_schema (
    id INTEGER PRIMARY KEY,
    readable_from TEXT NOT NULL
);
--bun:split

INSERT INTO kalends_schema (id, readable_from) VALUES (1, '20261217000100');
