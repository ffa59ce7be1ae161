package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ImportSource remembers where a record brought by an import from another
// site came from (kalends import tec): the site's REST root, the kind and
// its id there, the record here, its updated_at when the import last wrote
// it, and a hash of what the source said then.
type ImportSource struct {
	bun.BaseModel `bun:"table:import_sources"`

	Site          string    `bun:"site,pk"`
	Kind          string    `bun:"kind,pk"`
	SourceID      string    `bun:"source_id,pk"`
	LocalID       int64     `bun:"local_id,notnull"`
	LocalModified time.Time `bun:"local_modified,notnull"`
	SourceHash    string    `bun:"source_hash,notnull"`
	ImportedAt    time.Time `bun:"imported_at,notnull"`
}

// ImportSources returns every source row of site and kind, by source id.
func (s *Store) ImportSources(ctx context.Context, site, kind string) (map[string]*ImportSource, error) {
	var rows []*ImportSource
	err := s.db.NewSelect().Model(&rows).
		Where("site = ?", site).Where("kind = ?", kind).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: import sources: %w", mapErr(err))
	}
	out := make(map[string]*ImportSource, len(rows))
	for _, r := range rows {
		out[r.SourceID] = r
	}
	return out, nil
}

// PutImportSource stores r, replacing the row of the same source.
func (s *Store) PutImportSource(ctx context.Context, r *ImportSource) error {
	r.LocalModified, r.ImportedAt = Sec(r.LocalModified.UTC()), Sec(s.site.Now().UTC())
	return s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewDelete().TableExpr("import_sources").Where("site = ?", r.Site).
			Where("kind = ?", r.Kind).Where("source_id = ?", r.SourceID).Exec(ctx); err != nil {
			return fmt.Errorf("models: import source: %w", mapErr(err))
		}
		if _, err := tx.db.NewInsert().Model(r).Exec(ctx); err != nil {
			return fmt.Errorf("models: import source: %w", mapErr(err))
		}
		return nil
	})
}

// ImportedModified is the updated_at of the record of kind (event, venue,
// organizer, category or tag) with id, for the import to tell whether it
// was edited here since it wrote it; ErrNotFound when it is gone.
func (s *Store) ImportedModified(ctx context.Context, kind Kind, id int64) (time.Time, error) {
	table, _, err := slugTable(kind)
	if err != nil {
		return time.Time{}, err
	}
	var t time.Time
	err = s.db.NewSelect().TableExpr(table).Column("updated_at").Where("id = ?", id).Scan(ctx, &t)
	if err = mapErr(err); err != nil {
		return time.Time{}, err
	}
	return Sec(t.UTC()), nil
}

// SetImportedSlug gives the record of kind with id the slug an import
// brought, as it is (a slug the source made, percent-decoded and NFC, is
// not slugified again); another record with it is ErrSlugTaken, not a
// suffix. The record's updated_at does not change.
func (s *Store) SetImportedSlug(ctx context.Context, kind Kind, id int64, slug string) error {
	slug = NFC(slug)
	table, scope, err := slugTable(kind)
	if err != nil {
		return err
	}
	taken, err := s.SlugTaken(ctx, kind, slug, id)
	if err != nil {
		return err
	}
	if taken {
		return ErrSlugTaken
	}
	q := s.db.NewUpdate().TableExpr(table).Set("slug = ?", slug).Where("id = ?", id)
	if scope != "" {
		q = q.Where("taxonomy = ?", scope)
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("models: slug of %s %d: %w", kind, id, mapErr(err))
	}
	return nil
}
