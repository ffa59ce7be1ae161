-- The site's identity (issue 36), edited on /admin/settings: one row, made
-- here so that no page read has to create it. Names, taglines and links
-- are JSON (per language, or a list); an empty value means "the default".
-- A save moves the cache generation itself (models.SaveSettings), in a
-- transaction of its own, so there is no trigger. Each statement can run
-- again (the migration is not transactional on MySQL).
CREATE TABLE IF NOT EXISTS site_settings (
    id INT NOT NULL PRIMARY KEY,
    names TEXT NOT NULL,
    taglines TEXT NOT NULL,
    logo_media_id BIGINT NULL,
    accent_light VARCHAR(7) NOT NULL DEFAULT '',
    accent_dark VARCHAR(7) NOT NULL DEFAULT '',
    custom_css MEDIUMTEXT NOT NULL,
    default_view VARCHAR(16) NOT NULL DEFAULT '',
    links TEXT NOT NULL,
    updated_at DATETIME NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

INSERT IGNORE INTO site_settings (id, names, taglines, custom_css, links) VALUES (1, '{}', '{}', '', '[]');
