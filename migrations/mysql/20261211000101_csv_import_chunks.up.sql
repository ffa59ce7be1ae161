-- The bytes of an uploaded CSV file (see 20261211000100_csv_imports), in
-- pieces of at most 4 MiB so that no statement passes the server's
-- max_allowed_packet (16 MiB by default) whatever --import-max-bytes is.
CREATE TABLE csv_import_chunks (
  import_id BIGINT NOT NULL,
  seq INT NOT NULL,
  data LONGBLOB NOT NULL,
  PRIMARY KEY (import_id, seq),
  CONSTRAINT csv_import_chunks_fk FOREIGN KEY (import_id) REFERENCES csv_imports (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
