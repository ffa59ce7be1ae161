-- The cache generation: one number that every change of what the API
-- shows moves, in the same transaction as the change (triggers, so no
-- writer can forget it). Each instance's response cache compares it with
-- the number its entries were made under. Links (event_venues, …) need no
-- trigger: every write that changes them also writes the event, venue or
-- organizer row. Each statement can run again (the migration is not
-- transactional on MySQL). With binary logging on, creating triggers may
-- need log_bin_trust_function_creators=1 or the SUPER privilege.
CREATE TABLE IF NOT EXISTS cache_generation (
    id INT NOT NULL PRIMARY KEY,
    gen BIGINT NOT NULL
) ENGINE=InnoDB;
--bun:split

INSERT IGNORE INTO cache_generation (id, gen) VALUES (1, 1);
--bun:split

DROP TRIGGER IF EXISTS events_gen_ins;
--bun:split

CREATE TRIGGER events_gen_ins AFTER INSERT ON events FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS events_gen_upd;
--bun:split

CREATE TRIGGER events_gen_upd AFTER UPDATE ON events FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS events_gen_del;
--bun:split

CREATE TRIGGER events_gen_del AFTER DELETE ON events FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venues_gen_ins;
--bun:split

CREATE TRIGGER venues_gen_ins AFTER INSERT ON venues FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venues_gen_upd;
--bun:split

CREATE TRIGGER venues_gen_upd AFTER UPDATE ON venues FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venues_gen_del;
--bun:split

CREATE TRIGGER venues_gen_del AFTER DELETE ON venues FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizers_gen_ins;
--bun:split

CREATE TRIGGER organizers_gen_ins AFTER INSERT ON organizers FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizers_gen_upd;
--bun:split

CREATE TRIGGER organizers_gen_upd AFTER UPDATE ON organizers FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizers_gen_del;
--bun:split

CREATE TRIGGER organizers_gen_del AFTER DELETE ON organizers FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS terms_gen_ins;
--bun:split

CREATE TRIGGER terms_gen_ins AFTER INSERT ON terms FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS terms_gen_upd;
--bun:split

CREATE TRIGGER terms_gen_upd AFTER UPDATE ON terms FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS terms_gen_del;
--bun:split

CREATE TRIGGER terms_gen_del AFTER DELETE ON terms FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS event_translations_gen_ins;
--bun:split

CREATE TRIGGER event_translations_gen_ins AFTER INSERT ON event_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS event_translations_gen_upd;
--bun:split

CREATE TRIGGER event_translations_gen_upd AFTER UPDATE ON event_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS event_translations_gen_del;
--bun:split

CREATE TRIGGER event_translations_gen_del AFTER DELETE ON event_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_gen_ins;
--bun:split

CREATE TRIGGER venue_translations_gen_ins AFTER INSERT ON venue_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_gen_upd;
--bun:split

CREATE TRIGGER venue_translations_gen_upd AFTER UPDATE ON venue_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS venue_translations_gen_del;
--bun:split

CREATE TRIGGER venue_translations_gen_del AFTER DELETE ON venue_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_gen_ins;
--bun:split

CREATE TRIGGER organizer_translations_gen_ins AFTER INSERT ON organizer_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_gen_upd;
--bun:split

CREATE TRIGGER organizer_translations_gen_upd AFTER UPDATE ON organizer_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS organizer_translations_gen_del;
--bun:split

CREATE TRIGGER organizer_translations_gen_del AFTER DELETE ON organizer_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS term_translations_gen_ins;
--bun:split

CREATE TRIGGER term_translations_gen_ins AFTER INSERT ON term_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS term_translations_gen_upd;
--bun:split

CREATE TRIGGER term_translations_gen_upd AFTER UPDATE ON term_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS term_translations_gen_del;
--bun:split

CREATE TRIGGER term_translations_gen_del AFTER DELETE ON term_translations FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
