-- The cache generation: one number that every change of what the API
-- shows moves, in the same transaction as the change (triggers, so no
-- writer can forget it). Each instance's response cache compares it with
-- the number its entries were made under. Links (event_venues, …) need no
-- trigger: every write that changes them also writes the event, venue or
-- organizer row.
CREATE TABLE cache_generation (
    id INTEGER PRIMARY KEY,
    gen INTEGER NOT NULL
);
--bun:split

INSERT INTO cache_generation (id, gen) VALUES (1, 1);
--bun:split

CREATE TRIGGER events_gen_ins AFTER INSERT ON events BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER events_gen_upd AFTER UPDATE ON events BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER events_gen_del AFTER DELETE ON events BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venues_gen_ins AFTER INSERT ON venues BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venues_gen_upd AFTER UPDATE ON venues BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venues_gen_del AFTER DELETE ON venues BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizers_gen_ins AFTER INSERT ON organizers BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizers_gen_upd AFTER UPDATE ON organizers BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizers_gen_del AFTER DELETE ON organizers BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER terms_gen_ins AFTER INSERT ON terms BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER terms_gen_upd AFTER UPDATE ON terms BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER terms_gen_del AFTER DELETE ON terms BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER event_translations_gen_ins AFTER INSERT ON event_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER event_translations_gen_upd AFTER UPDATE ON event_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER event_translations_gen_del AFTER DELETE ON event_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venue_translations_gen_ins AFTER INSERT ON venue_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venue_translations_gen_upd AFTER UPDATE ON venue_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER venue_translations_gen_del AFTER DELETE ON venue_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizer_translations_gen_ins AFTER INSERT ON organizer_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizer_translations_gen_upd AFTER UPDATE ON organizer_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER organizer_translations_gen_del AFTER DELETE ON organizer_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER term_translations_gen_ins AFTER INSERT ON term_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER term_translations_gen_upd AFTER UPDATE ON term_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER term_translations_gen_del AFTER DELETE ON term_translations BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
