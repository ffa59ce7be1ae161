-- An image's row tells what events, venues and organizers show of it (its
-- sizes, or just its URL once it is gone), so a change of the media table
-- moves the cache generation too, in the writing transaction. Each
-- statement can run again (the migration is not transactional on MySQL).
DROP TRIGGER IF EXISTS media_gen_ins;
--bun:split

CREATE TRIGGER media_gen_ins AFTER INSERT ON media FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS media_gen_upd;
--bun:split

CREATE TRIGGER media_gen_upd AFTER UPDATE ON media FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
--bun:split

DROP TRIGGER IF EXISTS media_gen_del;
--bun:split

CREATE TRIGGER media_gen_del AFTER DELETE ON media FOR EACH ROW UPDATE cache_generation SET gen = gen + 1 WHERE id = 1;
