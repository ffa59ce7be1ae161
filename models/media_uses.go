package models

import (
	"context"
	"fmt"
	"strconv"
)

// Where an image is used, as a given user may learn it: the records they
// may read are named, the others only counted (issue 28: an image's page
// showed an author the titles of other users' drafts). Removing an image
// from the records that show it changes each of them, so it is an update of
// each, with that update's permission check, revision and cache move.

// MediaUse is a record that shows an image: an event, a venue or an
// organizer. A series counts once: its occurrences that follow it are
// folded into it (Dates).
type MediaUse struct {
	Kind   Kind
	ID     int64
	Title  string // in the record's own language
	Status string
	// Dates is how many events of a series show the image (the series
	// row and its occurrences that follow it); 1 for any other record.
	Dates int

	authorID int64
	rows     []Subject // every row the use covers, for the edit check
}

// MediaUsage is where an image is used, as one user sees it.
type MediaUsage struct {
	// Shown are the uses the user may read: events, then venues, then
	// organizers, each by id.
	Shown []MediaUse
	// Hidden is how many other records show the image.
	Hidden int
	// NotEditable is how many of all the uses (shown or not) the user may
	// not edit: a delete with unlink is refused while it is not 0.
	NotEditable int
}

// Total is how many records show the image.
func (u MediaUsage) Total() int { return len(u.Shown) + u.Hidden }

// MediaUses tells viewer where image id is used: the records viewer may
// read by id are named, the rest counted. A trashed event, which nobody
// reads by id, is named to who may edit it (its trash list shows it too).
func (s *Store) MediaUses(ctx context.Context, viewer *User, id int64) (MediaUsage, error) {
	uses, err := s.mediaUses(ctx, id)
	if err != nil {
		return MediaUsage{}, err
	}
	var out MediaUsage
	for _, use := range uses {
		if !mayEditUse(viewer, use) {
			out.NotEditable++
		}
		sub := Subject{Kind: use.Kind, AuthorID: use.authorID, Status: use.Status}
		if mayNameUse(viewer, sub) {
			out.Shown = append(out.Shown, use)
		} else {
			out.Hidden++
		}
	}
	return out, nil
}

// mayNameUse is the rule of reading a record by id (GetEvent, Linked.Get),
// widened to trashed events the viewer may edit.
func mayNameUse(u *User, sub Subject) bool {
	if sub.Kind == KindEvent && sub.Status == StatusTrash {
		return Can(u, ActEdit, sub)
	}
	return Can(u, ActRead, sub)
}

// mayEditUse is the check an update of each row of use makes.
func mayEditUse(u *User, use MediaUse) bool {
	for _, sub := range use.rows {
		if !Can(u, ActEdit, sub) {
			return false
		}
	}
	return true
}

// useRow is one stored row whose image_url names the image.
type useRow struct {
	ID          int64  `bun:"id"`
	Title       string `bun:"title"`
	AuthorID    int64  `bun:"author_id"`
	Status      string `bun:"status"`
	SeriesID    *int64 `bun:"series_id"`
	IsException bool   `bun:"is_exception"`
}

// mediaUses reads the records that show image id, a series once (three
// queries).
func (s *Store) mediaUses(ctx context.Context, id int64) ([]MediaUse, error) {
	prefix := "/media/" + strconv.FormatInt(id, 10) + "/%"
	var out []MediaUse
	for _, t := range []struct {
		kind         Kind
		table, title string
	}{{KindEvent, "events", "title"}, {KindVenue, "venues", "venue"}, {KindOrganizer, "organizers", "organizer"}} {
		var rows []useRow
		q := s.db.NewSelect().TableExpr(t.table).Column("id", "author_id", "status").ColumnExpr(t.title + " AS title")
		if t.kind == KindEvent {
			q = q.Column("series_id", "is_exception")
		}
		if err := q.Where("image_url LIKE ?", prefix).OrderExpr("id").Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("models: uses of image %d: %w", id, mapErr(err))
		}
		out = append(out, foldSeries(t.kind, rows)...)
	}
	return out, nil
}

// foldSeries makes a use of each row, but folds an occurrence that follows
// its series into the series' use when the series row shows the image too:
// an update of the series reaches it. An exception, or an occurrence taken
// out of its series into the trash, is a use of its own.
func foldSeries(k Kind, rows []useRow) []MediaUse {
	series := map[int64]int{} // series id → its use in out
	for _, r := range rows {
		if r.SeriesID != nil && *r.SeriesID == r.ID {
			series[r.ID] = -1
		}
	}
	var out []MediaUse
	var folded []useRow
	for _, r := range rows {
		if _, ok := series[derefID(r.SeriesID)]; ok && *r.SeriesID != r.ID && !r.IsException && r.Status != StatusTrash {
			folded = append(folded, r)
			continue
		}
		if r.SeriesID != nil && *r.SeriesID == r.ID {
			series[r.ID] = len(out)
		}
		out = append(out, MediaUse{Kind: k, ID: r.ID, Title: r.Title, Status: r.Status, Dates: 1, authorID: r.AuthorID,
			rows: []Subject{{Kind: k, AuthorID: r.AuthorID, Status: r.Status}}})
	}
	for _, r := range folded {
		u := &out[series[*r.SeriesID]]
		u.Dates++
		u.rows = append(u.rows, Subject{Kind: k, AuthorID: r.AuthorID, Status: r.Status})
	}
	return out
}

func derefID(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// unlinkMedia removes image id from every record that shows it, each
// through the update of that record as u (its permission check, its
// revision, modified and modified_by, a series' occurrences following the
// series), in the caller's transaction. The uses are read again after each
// update: a series' update also takes the image off its occurrences.
func (s *Store) unlinkMedia(ctx context.Context, u *User, id int64) error {
	done := map[int64]bool{}
	none := ""
	for {
		uses, err := s.mediaUses(ctx, id)
		if err != nil {
			return err
		}
		var next *MediaUse
		for i := range uses {
			if !done[uses[i].ID] {
				next = &uses[i]
				break
			}
		}
		if next == nil {
			if len(uses) > 0 {
				return fmt.Errorf("models: image %d still shown by %s %d after its update", id, uses[0].Kind, uses[0].ID)
			}
			return nil
		}
		done[next.ID] = true
		switch next.Kind {
		case KindEvent:
			_, err = s.UpdateEvent(ctx, u, ByID(next.ID), EventInput{ImageURL: &none})
		case KindVenue:
			_, err = s.Venues().Update(ctx, u, ByID(next.ID), VenueInput{ImageURL: &none}, "")
		case KindOrganizer:
			_, err = s.Organizers().Update(ctx, u, ByID(next.ID), OrganizerInput{ImageURL: &none}, "")
		}
		if err != nil {
			return fmt.Errorf("models: remove image %d from %s %d: %w", id, next.Kind, next.ID, err)
		}
	}
}
