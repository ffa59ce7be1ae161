-- The sizes of each image in the media library (see 20261124233000_media).
CREATE TABLE media_files (
  media_id INTEGER NOT NULL REFERENCES media (id) ON DELETE CASCADE,
  size VARCHAR(16) NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  filesize INTEGER NOT NULL,
  etag VARCHAR(64) NOT NULL,
  data BLOB NULL,
  PRIMARY KEY (media_id, size)
);
