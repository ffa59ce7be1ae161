-- Each term keeps the number of published events linked to it, maintained
-- by every write in the same transaction (models/term_counts.go), so no read
-- counts links. Filled here from the links that exist.
ALTER TABLE terms ADD COLUMN event_count INTEGER NOT NULL DEFAULT 0;
--bun:split

UPDATE terms SET event_count = (SELECT COUNT(*) FROM event_terms et JOIN events e ON e.id = et.event_id
    WHERE et.term_id = terms.id AND e.status = 'publish');
