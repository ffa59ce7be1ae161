package models

import (
	"context"
	"fmt"
)

// A seed on SQLite sets the secondary indexes of the tables it fills aside
// while it writes its events, and builds them again once they are all
// written (CREATE INDEX sorts). Kept, each new event would land on a page
// of its own in most of them: they are keyed by dates and slugs drawn at
// random. Past the page cache, every batch wrote most of their pages to
// the WAL again, so a 1,000,000-event seed's events took about 31 min
// against 64 s for 100,000; at 100,000 events, 55 s became 34 s, and 7 s
// to build them again.
//
// What is set aside is written down first, in the same transaction as the
// DROP INDEX, in indexes_set_aside; restoreIndexes builds them again and
// drops that table, in one transaction. A seed that fails restores them on
// its way out, and one that was killed leaves the table, which the next
// MigrateAndReport (every command that opens the database) restores first.

// indexesSetAside is the table that holds the indexes a seed set aside.
const indexesSetAside = "indexes_set_aside"

// seedKeptIndexes are the secondary indexes a seed keeps: those a query
// names (INDEXED BY), which would fail without them. Unique indexes are
// kept too: they are checks, not only paths.
var seedKeptIndexes = map[string]bool{"events_series_start_idx": true, "events_sitemap_idx": true}

// asideIndex is an index set aside: its name, the SQL that makes it, and
// whether it had statistics (ANALYZE).
type asideIndex struct {
	Name     string `bun:"name"`
	SQL      string `bun:"sql"`
	Analyzed bool   `bun:"analyzed"`
}

// sqliteHas tells whether the schema holds an object of type typ
// ("table", "index") named name (SQLite).
func (s *Store) sqliteHas(ctx context.Context, typ, name string) (bool, error) {
	var n int
	if err := s.db.NewRaw("SELECT count(*) FROM sqlite_master WHERE type = ? AND name = ?", typ, name).Scan(ctx, &n); err != nil {
		return false, fmt.Errorf("models: read the schema: %w", mapErr(err))
	}
	return n > 0, nil
}

// setIndexesAside drops the secondary indexes of seedBulkTables but those
// of seedKeptIndexes and the unique ones, and writes them down in
// indexesSetAside (SQLite). With statistics (ANALYZE) for an index, it
// says so: restoreIndexes gathers them again.
func (s *Store) setIndexesAside(ctx context.Context) (int, error) {
	n := 0
	err := s.RunInTx(ctx, func(tx *Store) error {
		stat := "0"
		analyzed, err := tx.sqliteHas(ctx, "table", "sqlite_stat1")
		if err != nil {
			return err
		}
		if analyzed {
			stat = "EXISTS (SELECT 1 FROM sqlite_stat1 s WHERE s.idx = m.name)"
		}
		in, args := inStrings(seedBulkTables)
		var all []asideIndex
		if err := tx.db.NewRaw("SELECT name, sql, "+stat+" AS analyzed FROM sqlite_master m WHERE type = 'index' AND sql IS NOT NULL "+
			"AND sql NOT LIKE 'CREATE UNIQUE %' AND tbl_name IN ("+in+") ORDER BY rowid", args...).Scan(ctx, &all); err != nil {
			return fmt.Errorf("models: seed: read indexes: %w", mapErr(err))
		}
		if _, err := tx.db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+indexesSetAside+
			" (seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, sql TEXT NOT NULL, analyzed BOOLEAN NOT NULL)"); err != nil {
			return fmt.Errorf("models: seed: set indexes aside: %w", mapErr(err))
		}
		for _, ix := range all {
			if seedKeptIndexes[ix.Name] {
				continue
			}
			if _, err := tx.db.ExecContext(ctx, "INSERT INTO "+indexesSetAside+" (name, sql, analyzed) VALUES (?, ?, ?)", ix.Name, ix.SQL, ix.Analyzed); err != nil {
				return fmt.Errorf("models: seed: set index %s aside: %w", ix.Name, mapErr(err))
			}
			if _, err := tx.db.ExecContext(ctx, `DROP INDEX "`+ix.Name+`"`); err != nil {
				return fmt.Errorf("models: seed: set index %s aside: %w", ix.Name, mapErr(err))
			}
			n++
		}
		return nil
	})
	return n, err
}

// restoreIndexes builds the indexes set aside again (setIndexesAside), in
// the order they had, gathers the statistics of those that had them, and
// drops indexesSetAside; nothing when it does not exist (SQLite).
func (s *Store) restoreIndexes(ctx context.Context) error {
	if s.dialect != SQLite {
		return nil
	}
	return s.RunInTx(ctx, func(tx *Store) error {
		if has, err := tx.sqliteHas(ctx, "table", indexesSetAside); err != nil || !has {
			return err
		}
		var aside []asideIndex
		if err := tx.db.NewRaw("SELECT name, sql, analyzed FROM "+indexesSetAside+" ORDER BY seq").Scan(ctx, &aside); err != nil {
			return fmt.Errorf("models: restore indexes: %w", mapErr(err))
		}
		// CREATE INDEX sorts in the page cache's memory before it spills
		// to temporary files.
		if err := tx.bulkCache(ctx); err != nil {
			return err
		}
		defer tx.defaultCache(ctx)
		for _, ix := range aside {
			// One made again meanwhile (by hand) is left as it is.
			made, err := tx.sqliteHas(ctx, "index", ix.Name)
			if err != nil {
				return err
			}
			if made {
				continue
			}
			if _, err := tx.db.ExecContext(ctx, ix.SQL); err != nil {
				return fmt.Errorf("models: restore index %s: %w", ix.Name, mapErr(err))
			}
			if ix.Analyzed {
				if _, err := tx.db.ExecContext(ctx, `ANALYZE "`+ix.Name+`"`); err != nil {
					return fmt.Errorf("models: restore index %s: %w", ix.Name, mapErr(err))
				}
			}
		}
		if _, err := tx.db.ExecContext(ctx, "DROP TABLE "+indexesSetAside); err != nil {
			return fmt.Errorf("models: restore indexes: %w", mapErr(err))
		}
		return nil
	})
}
