-- CSV imports run from the admin (issue 33): one row per uploaded file, its
-- settings (kind, encoding, date order, the column mapping as JSON), the
-- job's state and progress, and the problems of the rows that failed (the
-- first ones, as JSON). The file itself is in csv_import_chunks. The job runs
-- on one instance at a time (the lease csv-import); attempts counts the
-- starts, so a job that keeps being interrupted ends as failed.
CREATE TABLE csv_imports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  file_name VARCHAR(255) NOT NULL,
  size INTEGER NOT NULL,
  state VARCHAR(16) NOT NULL,
  kind VARCHAR(16) NOT NULL,
  encoding VARCHAR(16) NOT NULL,
  date_order VARCHAR(8) NOT NULL,
  mapping TEXT NOT NULL,
  total INTEGER NOT NULL,
  done INTEGER NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  unchanged INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  problems TEXT NOT NULL,
  error VARCHAR(255) NOT NULL,
  attempts INTEGER NOT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  finished_at DATETIME NULL
);
CREATE INDEX csv_imports_user_idx ON csv_imports (user_id, id);
CREATE INDEX csv_imports_state_idx ON csv_imports (state, id);
