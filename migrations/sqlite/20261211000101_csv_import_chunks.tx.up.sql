-- The bytes of an uploaded CSV file (see 20261211000100_csv_imports), in
-- pieces of at most 4 MiB, as on MySQL.
CREATE TABLE csv_import_chunks (
  import_id INTEGER NOT NULL REFERENCES csv_imports (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (import_id, seq)
);
