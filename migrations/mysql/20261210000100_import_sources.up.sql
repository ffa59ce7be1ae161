-- Where each record brought by `kalends import tec` came from (issue 33):
-- the source site's REST root, the kind and the id there. A second import
-- finds the record again instead of duplicating it; local_modified is the
-- record's updated_at when the import last wrote it (an edit made here
-- since is kept), source_hash what the source said then (unchanged).
CREATE TABLE IF NOT EXISTS import_sources (
    site VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    kind VARCHAR(16) COLLATE utf8mb4_bin NOT NULL,
    source_id VARCHAR(64) COLLATE utf8mb4_bin NOT NULL,
    local_id BIGINT NOT NULL,
    local_modified DATETIME NOT NULL,
    source_hash VARCHAR(64) NOT NULL,
    imported_at DATETIME NOT NULL,
    PRIMARY KEY (site, kind, source_id),
    KEY import_sources_local_idx (kind, local_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
