-- Old slugs: when a record's slug changes (an edit, an import, a revision
-- restored, any write), the slug it had is kept here, so its old public
-- address answers 301 to the current one, as WordPress keeps its old-slug
-- record. Triggers record it in the write's own transaction, so no write
-- path can forget it. kind is event, venue, organizer, category or tag.
-- A slug a record takes back (or another record of the kind takes) is
-- dropped here: the live slug always wins. A deleted record's old slugs go
-- with it. Each statement can run again (the migration is not
-- transactional on MySQL).
CREATE TABLE IF NOT EXISTS old_slugs (
    kind VARCHAR(16) NOT NULL,
    slug VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    target_id BIGINT NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (kind, slug),
    KEY old_slugs_target_idx (kind, target_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

DROP TRIGGER IF EXISTS events_old_slug_upd;
--bun:split

CREATE TRIGGER events_old_slug_upd AFTER UPDATE ON events FOR EACH ROW
BEGIN
    IF OLD.slug <> NEW.slug THEN
        DELETE FROM old_slugs WHERE kind = 'event' AND slug = NEW.slug;
        INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('event', OLD.slug, OLD.id, UTC_TIMESTAMP())
            ON DUPLICATE KEY UPDATE target_id = VALUES(target_id), created_at = VALUES(created_at);
    END IF;
END;
--bun:split

DROP TRIGGER IF EXISTS events_old_slug_del;
--bun:split

CREATE TRIGGER events_old_slug_del AFTER DELETE ON events FOR EACH ROW
    DELETE FROM old_slugs WHERE kind = 'event' AND target_id = OLD.id;
--bun:split

DROP TRIGGER IF EXISTS venues_old_slug_upd;
--bun:split

CREATE TRIGGER venues_old_slug_upd AFTER UPDATE ON venues FOR EACH ROW
BEGIN
    IF OLD.slug <> NEW.slug THEN
        DELETE FROM old_slugs WHERE kind = 'venue' AND slug = NEW.slug;
        INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('venue', OLD.slug, OLD.id, UTC_TIMESTAMP())
            ON DUPLICATE KEY UPDATE target_id = VALUES(target_id), created_at = VALUES(created_at);
    END IF;
END;
--bun:split

DROP TRIGGER IF EXISTS venues_old_slug_del;
--bun:split

CREATE TRIGGER venues_old_slug_del AFTER DELETE ON venues FOR EACH ROW
    DELETE FROM old_slugs WHERE kind = 'venue' AND target_id = OLD.id;
--bun:split

DROP TRIGGER IF EXISTS organizers_old_slug_upd;
--bun:split

CREATE TRIGGER organizers_old_slug_upd AFTER UPDATE ON organizers FOR EACH ROW
BEGIN
    IF OLD.slug <> NEW.slug THEN
        DELETE FROM old_slugs WHERE kind = 'organizer' AND slug = NEW.slug;
        INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('organizer', OLD.slug, OLD.id, UTC_TIMESTAMP())
            ON DUPLICATE KEY UPDATE target_id = VALUES(target_id), created_at = VALUES(created_at);
    END IF;
END;
--bun:split

DROP TRIGGER IF EXISTS organizers_old_slug_del;
--bun:split

CREATE TRIGGER organizers_old_slug_del AFTER DELETE ON organizers FOR EACH ROW
    DELETE FROM old_slugs WHERE kind = 'organizer' AND target_id = OLD.id;
--bun:split

DROP TRIGGER IF EXISTS terms_old_slug_upd;
--bun:split

CREATE TRIGGER terms_old_slug_upd AFTER UPDATE ON terms FOR EACH ROW
BEGIN
    IF OLD.slug <> NEW.slug THEN
        DELETE FROM old_slugs WHERE kind = NEW.taxonomy AND slug = NEW.slug;
        INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES (OLD.taxonomy, OLD.slug, OLD.id, UTC_TIMESTAMP())
            ON DUPLICATE KEY UPDATE target_id = VALUES(target_id), created_at = VALUES(created_at);
    END IF;
END;
--bun:split

DROP TRIGGER IF EXISTS terms_old_slug_del;
--bun:split

CREATE TRIGGER terms_old_slug_del AFTER DELETE ON terms FOR EACH ROW
    DELETE FROM old_slugs WHERE kind = OLD.taxonomy AND target_id = OLD.id;
