-- Translations of the texts of media library images: title and alt text per
-- language, falling back to the image's own texts (those of the site's
-- default language) field by field.
CREATE TABLE media_translations (
  media_id INTEGER NOT NULL REFERENCES media (id) ON DELETE CASCADE,
  lang VARCHAR(10) NOT NULL,
  title VARCHAR(255) NULL,
  alt_text VARCHAR(1000) NULL,
  PRIMARY KEY (media_id, lang)
);
