-- The media library: uploaded images, one row per image and one per
-- generated size ("full" is the re-encoded original, without metadata).
-- data holds the bytes when the files are stored in the database
-- (--media-store db) and is NULL when they live in the media directory.
CREATE TABLE media (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  author_id INTEGER NOT NULL,
  name VARCHAR(191) NOT NULL,
  ext VARCHAR(8) NOT NULL,
  mime VARCHAR(32) NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  filesize INTEGER NOT NULL,
  title VARCHAR(255) NOT NULL DEFAULT '',
  alt_text VARCHAR(1000) NOT NULL DEFAULT '',
  created_at DATETIME NOT NULL
);
