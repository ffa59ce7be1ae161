-- Translations of the texts of media library images: title and alt text per
-- language, falling back to the image's own texts (those of the site's
-- default language) field by field.
CREATE TABLE media_translations (
  media_id BIGINT NOT NULL,
  lang VARCHAR(10) NOT NULL,
  title VARCHAR(255) NULL,
  alt_text VARCHAR(1000) NULL,
  PRIMARY KEY (media_id, lang),
  CONSTRAINT media_translations_fk FOREIGN KEY (media_id) REFERENCES media (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
