-- Files every event under its categories and their ancestors (safe to run
-- again).
INSERT IGNORE INTO event_category_ancestors (event_id, term_id, status, hidden, start_at, end_at)
WITH RECURSIVE up(term_id, ancestor_id) AS (
    SELECT id, id FROM terms WHERE taxonomy = 'category'
    UNION
    SELECT up.term_id, p.id FROM up JOIN terms t ON t.id = up.ancestor_id JOIN terms p ON p.id = t.parent_id AND p.taxonomy = 'category'
)
SELECT DISTINCT et.event_id, up.ancestor_id, e.status, e.hide_from_listings, e.start_at, e.end_at
FROM event_terms et JOIN up ON up.term_id = et.term_id JOIN events e ON e.id = et.event_id;
