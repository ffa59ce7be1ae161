-- The site's identity (issue 36), edited on /admin/settings: one row, made
-- here so that no page read has to create it. Names, taglines and links
-- are JSON (per language, or a list); an empty value means "the default".
-- A save moves the cache generation itself (models.SaveSettings), in a
-- transaction of its own, so there is no trigger.
CREATE TABLE site_settings (
    id INTEGER PRIMARY KEY,
    names TEXT NOT NULL DEFAULT '{}',
    taglines TEXT NOT NULL DEFAULT '{}',
    logo_media_id INTEGER,
    accent_light TEXT NOT NULL DEFAULT '',
    accent_dark TEXT NOT NULL DEFAULT '',
    custom_css TEXT NOT NULL DEFAULT '',
    default_view TEXT NOT NULL DEFAULT '',
    links TEXT NOT NULL DEFAULT '[]',
    updated_at TIMESTAMP
);
--bun:split

INSERT INTO site_settings (id) VALUES (1);
