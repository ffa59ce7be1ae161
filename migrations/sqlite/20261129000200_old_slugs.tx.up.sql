-- Old slugs: when a record's slug changes (an edit, an import, a revision
-- restored, any write), the slug it had is kept here, so its old public
-- address answers 301 to the current one, as WordPress keeps its old-slug
-- record. Triggers record it in the write's own transaction, so no write
-- path can forget it. kind is event, venue, organizer, category or tag.
-- A slug a record takes back (or another record of the kind takes) is
-- dropped here: the live slug always wins. A deleted record's old slugs go
-- with it.
CREATE TABLE old_slugs (
    kind VARCHAR(16) NOT NULL,
    slug VARCHAR(255) NOT NULL,
    target_id INTEGER NOT NULL,
    created_at DATETIME NOT NULL,
    PRIMARY KEY (kind, slug)
);
--bun:split

CREATE INDEX old_slugs_target_idx ON old_slugs (kind, target_id);
--bun:split

CREATE TRIGGER events_old_slug_upd AFTER UPDATE OF slug ON events FOR EACH ROW WHEN OLD.slug <> NEW.slug BEGIN
    DELETE FROM old_slugs WHERE kind = 'event' AND slug = NEW.slug;
    INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('event', OLD.slug, OLD.id, CURRENT_TIMESTAMP)
        ON CONFLICT (kind, slug) DO UPDATE SET target_id = excluded.target_id, created_at = excluded.created_at;
END;
--bun:split

CREATE TRIGGER events_old_slug_del AFTER DELETE ON events FOR EACH ROW BEGIN
    DELETE FROM old_slugs WHERE kind = 'event' AND target_id = OLD.id;
END;
--bun:split

CREATE TRIGGER venues_old_slug_upd AFTER UPDATE OF slug ON venues FOR EACH ROW WHEN OLD.slug <> NEW.slug BEGIN
    DELETE FROM old_slugs WHERE kind = 'venue' AND slug = NEW.slug;
    INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('venue', OLD.slug, OLD.id, CURRENT_TIMESTAMP)
        ON CONFLICT (kind, slug) DO UPDATE SET target_id = excluded.target_id, created_at = excluded.created_at;
END;
--bun:split

CREATE TRIGGER venues_old_slug_del AFTER DELETE ON venues FOR EACH ROW BEGIN
    DELETE FROM old_slugs WHERE kind = 'venue' AND target_id = OLD.id;
END;
--bun:split

CREATE TRIGGER organizers_old_slug_upd AFTER UPDATE OF slug ON organizers FOR EACH ROW WHEN OLD.slug <> NEW.slug BEGIN
    DELETE FROM old_slugs WHERE kind = 'organizer' AND slug = NEW.slug;
    INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES ('organizer', OLD.slug, OLD.id, CURRENT_TIMESTAMP)
        ON CONFLICT (kind, slug) DO UPDATE SET target_id = excluded.target_id, created_at = excluded.created_at;
END;
--bun:split

CREATE TRIGGER organizers_old_slug_del AFTER DELETE ON organizers FOR EACH ROW BEGIN
    DELETE FROM old_slugs WHERE kind = 'organizer' AND target_id = OLD.id;
END;
--bun:split

CREATE TRIGGER terms_old_slug_upd AFTER UPDATE OF slug ON terms FOR EACH ROW WHEN OLD.slug <> NEW.slug BEGIN
    DELETE FROM old_slugs WHERE kind = NEW.taxonomy AND slug = NEW.slug;
    INSERT INTO old_slugs (kind, slug, target_id, created_at) VALUES (OLD.taxonomy, OLD.slug, OLD.id, CURRENT_TIMESTAMP)
        ON CONFLICT (kind, slug) DO UPDATE SET target_id = excluded.target_id, created_at = excluded.created_at;
END;
--bun:split

CREATE TRIGGER terms_old_slug_del AFTER DELETE ON terms FOR EACH ROW BEGIN
    DELETE FROM old_slugs WHERE kind = OLD.taxonomy AND target_id = OLD.id;
END;
