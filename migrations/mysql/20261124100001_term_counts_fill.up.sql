-- Fills terms.event_count from the links that exist (safe to run again).
UPDATE terms SET event_count = (SELECT COUNT(*) FROM event_terms et JOIN events e ON e.id = et.event_id
    WHERE et.term_id = terms.id AND e.status = 'publish');
