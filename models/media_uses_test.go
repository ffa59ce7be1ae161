package models_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// usedRecord is an event, venue or organizer that shows an image.
type usedRecord struct {
	table string
	kind  models.Kind
	id    int64
}

// recordChange is what a record keeps of its last change.
type recordChange struct {
	ImageURL   string    `bun:"image_url"`
	UpdatedAt  time.Time `bun:"updated_at"`
	ModifiedBy int64     `bun:"modified_by"`
}

func changeOf(t *testing.T, db *models.DB, r usedRecord) recordChange {
	t.Helper()
	var c recordChange
	if err := db.Bun.NewSelect().TableExpr(r.table).Column("image_url", "updated_at", "modified_by").Where("id = ?", r.id).
		Scan(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func imageEvent(t *testing.T, db *models.DB, as *models.User, title, status, image string) int64 {
	t.Helper()
	in := baseInput(title, "2031-03-01 19:00:00", "2031-03-01 21:00:00")
	in.Status, in.ImageURL = &status, &image
	e, err := db.CreateEvent(context.Background(), as, in)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// TestDeleteWithUnlinkNeedsEditPermission (issue 28, finding 8): deleting
// an image with unlink changes every record that shows it, so it needs
// edit permission on each (as an update of that record): the uploader, an
// author, is refused with the number of records in the way, and nothing
// changes, not even their own records; an editor's delete removes the
// image from each record as an update does: a revision of the state
// before, modified and modified_by, the cache generation moved.
func TestDeleteWithUnlinkNeedsEditPermission(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		author := newUser(t, db, "autor@example.test", models.RoleAuthor)
		ed := newUser(t, db, "henshu@example.test", models.RoleEditor)
		m, err := db.CreateMedia(ctx, author, models.MediaUpload{FileName: "hall.png", Data: imagetest.PNG(300, 200)})
		if err != nil {
			t.Fatal(err)
		}
		image := strconv.FormatInt(m.ID, 10)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("서울 홀"), ImageURL: &image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		o, _, err := db.Organizers().Create(ctx, author, models.OrganizerInput{Organizer: ptr("Ünïon 主办方"), ImageURL: &image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		records := []usedRecord{
			{"events", models.KindEvent, imageEvent(t, db, ed, "編集者のイベント", models.StatusPublish, image)},
			{"events", models.KindEvent, imageEvent(t, db, author, "Mon événement", models.StatusDraft, image)},
			{"venues", models.KindVenue, v.ID},
			{"organizers", models.KindOrganizer, o.ID},
		}
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		for _, r := range records {
			if _, err := db.Bun.NewUpdate().TableExpr(r.table).Set("updated_at = ?", old).Where("id = ?", r.id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		gen, err := db.CacheGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}

		// The editor's event and venue stand in the way of the author.
		var fe *models.ForbiddenError
		err = db.DeleteMedia(ctx, author, m.ID, true)
		if !errors.As(err, &fe) || fe.Reason != models.RefusalUsesNotEditable || fe.MessageID() != "media.error.uses_not_editable" ||
			fe.Data["Count"] != 2 {
			t.Fatalf("the author's delete with unlink: %v", err)
		}
		if _, err := db.Media(ctx, m.ID); err != nil {
			t.Fatalf("the image is gone after a refusal: %v", err)
		}
		for _, r := range records {
			if c := changeOf(t, db, r); c.ImageURL != m.Path("full") || !c.UpdatedAt.Equal(old) {
				t.Errorf("%s %d changed by a refused delete: %+v", r.kind, r.id, c)
			}
			if _, revs, err := db.Revisions(ctx, ed, r.kind, models.ByID(r.id)); err != nil || len(revs) != 0 {
				t.Errorf("%s %d: revisions after a refused delete: %v %+v", r.kind, r.id, err, revs)
			}
		}
		if g, _ := db.CacheGeneration(ctx); g != gen {
			t.Errorf("cache generation moved by a refused delete: %d → %d", gen, g)
		}

		if err := db.DeleteMedia(ctx, ed, m.ID, true); err != nil {
			t.Fatalf("the editor's delete with unlink: %v", err)
		}
		if _, err := db.Media(ctx, m.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("the image after its delete: %v", err)
		}
		for _, r := range records {
			c := changeOf(t, db, r)
			if c.ImageURL != "" || c.UpdatedAt.Equal(old) || c.ModifiedBy != ed.ID {
				t.Errorf("%s %d after the unlink: %+v (editor %d)", r.kind, r.id, c, ed.ID)
			}
			_, revs, err := db.Revisions(ctx, ed, r.kind, models.ByID(r.id))
			if err != nil || len(revs) != 1 || revs[0].AuthorID != ed.ID || !slices.Contains(revs[0].Fields, "image_url") {
				t.Errorf("%s %d: revisions %v %+v", r.kind, r.id, err, revs)
			}
		}
		if g, _ := db.CacheGeneration(ctx); g <= gen {
			t.Errorf("cache generation did not move: %d → %d", gen, g)
		}
	})
}

// TestMediaPageHidesRecordsTheViewerMayNotRead (issue 28, finding 7): the
// uses of an image name only the records the viewer may read by id and
// count the rest. An author sees the published event of an editor, not
// another author's draft nor the editor's private venue; an editor sees
// all three; a visitor only the published event.
func TestMediaPageHidesRecordsTheViewerMayNotRead(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		author := newUser(t, db, "chosha@example.test", models.RoleAuthor)
		other := newUser(t, db, "autre@example.test", models.RoleAuthor)
		ed := newUser(t, db, "pyeonjipja@example.test", models.RoleEditor)
		m, err := db.CreateMedia(ctx, author, models.MediaUpload{FileName: "hall.png", Data: imagetest.PNG(300, 200)})
		if err != nil {
			t.Fatal(err)
		}
		image := strconv.FormatInt(m.ID, 10)
		draft := imageEvent(t, db, other, "秘密の下書き", models.StatusDraft, image)
		published := imageEvent(t, db, ed, "공개 음악회", models.StatusPublish, image)
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{PostInput: models.PostInput{Status: ptr(models.StatusPrivate)},
			Venue: ptr("Salle privée"), ImageURL: &image}, "en")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name   string
			viewer *models.User
			shown  []int64
		}{
			{"author", author, []int64{published}},
			{"visitor", nil, []int64{published}},
			{"editor", ed, []int64{draft, published, v.ID}},
			{"the draft's author", other, []int64{draft, published}},
		} {
			uses, err := db.MediaUses(ctx, c.viewer, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			var shown []int64
			for _, u := range uses.Shown {
				shown = append(shown, u.ID)
			}
			if !slices.Equal(shown, c.shown) || uses.Hidden != 3-len(c.shown) || uses.Total() != 3 {
				t.Errorf("%s: shown %v, hidden %d; want %v, %d", c.name, shown, uses.Hidden, c.shown, 3-len(c.shown))
			}
		}
		uses, _ := db.MediaUses(ctx, author, m.ID)
		if len(uses.Shown) != 1 || uses.Shown[0].Title != "공개 음악회" || uses.Shown[0].Kind != models.KindEvent || uses.NotEditable != 3 {
			t.Errorf("the author's view: %+v", uses)
		}
	})
}

// TestMediaUsesOfASeriesAndOfTheTrash: a series shows once, with how many
// of its dates follow it; an occurrence edited on its own or taken into
// the trash is a use of its own; a trashed event (which nobody reads by
// id) is named to who may edit it. A delete with unlink takes the image off
// every row, the series through its update.
func TestMediaUsesOfASeriesAndOfTheTrash(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		seriesSite(db)
		ctx := context.Background()
		author := newUser(t, db, "sakka@example.test", models.RoleAuthor)
		other := newUser(t, db, "autorin@example.test", models.RoleAuthor)
		ed := newUser(t, db, "redakteur@example.test", models.RoleEditor)
		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: "river.png", Data: imagetest.PNG(300, 200)})
		if err != nil {
			t.Fatal(err)
		}
		image := strconv.FormatInt(m.ID, 10)
		in := baseInput("Yoga am Fluss", "2027-02-23 07:00:00", "2027-02-23 08:00:00")
		in.Recurrence, in.ImageURL, in.Status = ptr("FREQ=WEEKLY;BYDAY=TU;COUNT=5"), &image, ptr(models.StatusPublish)
		series, err := db.CreateEvent(ctx, ed, in)
		if err != nil {
			t.Fatal(err)
		}
		rows := seriesEvents(t, db, ed, series.ID)
		if len(rows) != 5 {
			t.Fatalf("series rows: %d", len(rows))
		}
		exception, trashed := rows[2].ID, rows[4].ID
		if _, err := db.UpdateEvent(ctx, ed, models.ByID(exception), models.EventInput{Title: ptr("Yoga am Fluss (im Saal)")}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.TrashEvent(ctx, ed, models.ByID(trashed), "en"); err != nil {
			t.Fatal(err)
		}
		own := imageEvent(t, db, author, "Mon brouillon jeté", models.StatusDraft, image)
		if _, err := db.TrashEvent(ctx, author, models.ByID(own), "en"); err != nil {
			t.Fatal(err)
		}

		uses, err := db.MediaUses(ctx, ed, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]models.MediaUse{}
		for _, u := range uses.Shown {
			got[u.ID] = u
		}
		if len(uses.Shown) != 4 || uses.Hidden != 0 || got[series.ID].Dates != 3 || got[exception].Dates != 1 ||
			got[trashed].Status != models.StatusTrash || got[own].Status != models.StatusTrash {
			t.Fatalf("the editor's view: %+v", uses)
		}
		if uses, _ := db.MediaUses(ctx, author, m.ID); len(uses.Shown) != 3 || uses.Hidden != 1 {
			t.Errorf("the author sees their trashed event and the published series: %+v", uses)
		}
		if uses, _ := db.MediaUses(ctx, other, m.ID); len(uses.Shown) != 2 || uses.Hidden != 2 {
			t.Errorf("another author sees the published series only: %+v", uses)
		}

		if err := db.DeleteMedia(ctx, ed, m.ID, true); err != nil {
			t.Fatalf("delete with unlink: %v", err)
		}
		n, err := db.Bun.NewSelect().TableExpr("events").Where("image_url <> ''").Count(ctx)
		if err != nil || n != 0 {
			t.Errorf("events still showing the image: %d %v", n, err)
		}
		for _, id := range []int64{series.ID, exception, trashed, own} {
			if _, revs, err := db.Revisions(ctx, ed, models.KindEvent, models.ByID(id)); err != nil || len(revs) == 0 ||
				!slices.Contains(revs[0].Fields, "image_url") {
				t.Errorf("event %d: no revision of the unlink: %v %+v", id, err, revs)
			}
		}
		if rows := seriesEvents(t, db, ed, series.ID); len(rows) != 4 {
			t.Errorf("the series after the unlink: %d rows", len(rows))
		}
	})
}
