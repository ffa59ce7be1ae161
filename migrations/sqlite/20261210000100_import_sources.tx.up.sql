-- Where each record brought by `kalends import tec` came from (issue 33):
-- the source site's REST root, the kind and the id there. A second import
-- finds the record again instead of duplicating it; local_modified is the
-- record's updated_at when the import last wrote it (an edit made here
-- since is kept), source_hash what the source said then (unchanged).
CREATE TABLE IF NOT EXISTS import_sources (
    site TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_id TEXT NOT NULL,
    local_id INTEGER NOT NULL,
    local_modified DATETIME NOT NULL,
    source_hash TEXT NOT NULL,
    imported_at DATETIME NOT NULL,
    PRIMARY KEY (site, kind, source_id)
);
--bun:split

CREATE INDEX IF NOT EXISTS import_sources_local_idx ON import_sources (kind, local_id);
