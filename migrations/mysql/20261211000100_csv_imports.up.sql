-- CSV imports run from the admin (issue 33): one row per uploaded file, its
-- settings (kind, encoding, date order, the column mapping as JSON), the
-- job's state and progress, and the problems of the rows that failed (the
-- first ones, as JSON). The file itself is in csv_import_chunks. The job runs
-- on one instance at a time (the lease csv-import); attempts counts the
-- starts, so a job that keeps being interrupted ends as failed.
CREATE TABLE csv_imports (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id BIGINT NOT NULL,
  file_name VARCHAR(255) NOT NULL,
  size BIGINT NOT NULL,
  state VARCHAR(16) NOT NULL,
  kind VARCHAR(16) NOT NULL,
  encoding VARCHAR(16) NOT NULL,
  date_order VARCHAR(8) NOT NULL,
  mapping TEXT NOT NULL,
  total INT NOT NULL,
  done INT NOT NULL,
  created INT NOT NULL,
  updated INT NOT NULL,
  unchanged INT NOT NULL,
  failed INT NOT NULL,
  problems LONGTEXT NOT NULL,
  error VARCHAR(255) NOT NULL,
  attempts INT NOT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  finished_at DATETIME NULL,
  KEY csv_imports_user_idx (user_id, id),
  KEY csv_imports_state_idx (state, id),
  CONSTRAINT csv_imports_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
