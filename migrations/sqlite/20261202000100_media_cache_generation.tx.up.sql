-- An image's row tells what events, venues and organizers show of it (its
-- sizes, or just its URL once it is gone), so a change of the media table
-- moves the cache generation too, in the writing transaction.
CREATE TRIGGER media_gen_ins AFTER INSERT ON media BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER media_gen_upd AFTER UPDATE ON media BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
--bun:split

CREATE TRIGGER media_gen_del AFTER DELETE ON media BEGIN UPDATE cache_generation SET gen = gen + 1 WHERE id = 1; END;
