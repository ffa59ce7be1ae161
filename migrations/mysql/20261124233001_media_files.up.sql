-- The sizes of each image in the media library (see 20261124233000_media).
CREATE TABLE media_files (
  media_id BIGINT NOT NULL,
  size VARCHAR(16) NOT NULL,
  width INT NOT NULL,
  height INT NOT NULL,
  filesize BIGINT NOT NULL,
  etag VARCHAR(64) NOT NULL,
  data LONGBLOB NULL,
  PRIMARY KEY (media_id, size),
  CONSTRAINT media_files_media_fk FOREIGN KEY (media_id) REFERENCES media (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
