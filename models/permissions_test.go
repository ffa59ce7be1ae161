package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The expectations below are SPEC §6 written out by hand, not derived from
// models.Can: the operations must hold the rules with no adapter in front.

// rank orders the roles of SPEC §6; 0 is an anonymous caller.
var rank = map[models.Role]int{"": 0, models.RoleSubscriber: 1, models.RoleContributor: 2, models.RoleAuthor: 3,
	models.RoleEditor: 4, models.RoleAdministrator: 5}

// specMay says whether SPEC §6 lets a caller of role do op on a
// post-like record (event, venue, organizer) in status, own or not.
func specMay(role models.Role, op string, own bool, status string) bool {
	r := rank[role]
	published := status == models.StatusPublish
	switch op {
	case "get": // published: everyone; else editors, and owners who write
		return published || r >= 4 || (r >= 2 && own)
	case "update", "trash": // editors any; authors own; contributors own unpublished
		return r >= 4 || (r == 3 && own) || (r == 2 && own && !published)
	case "delete": // force delete: editors and administrators
		return r >= 4
	}
	panic("unknown op " + op)
}

// postOps runs the operations of one post-like kind.
type postOps struct {
	kind   models.Kind
	create func(ctx context.Context, u *models.User, in models.PostInput) (*models.Post, error)
	get    func(ctx context.Context, u *models.User, ref models.Ref) error
	update func(ctx context.Context, u *models.User, ref models.Ref) error
	trash  func(ctx context.Context, u *models.User, ref models.Ref) error
	delete func(ctx context.Context, u *models.User, ref models.Ref) error
	list   func(ctx context.Context, u *models.User) ([]int64, error)
}

func (o postOps) run(ctx context.Context, op string, u *models.User, ref models.Ref) error {
	switch op {
	case "get":
		return o.get(ctx, u, ref)
	case "update":
		return o.update(ctx, u, ref)
	case "trash":
		return o.trash(ctx, u, ref)
	case "delete":
		return o.delete(ctx, u, ref)
	}
	panic("unknown op " + op)
}

func eventOps(db *models.DB) postOps {
	return postOps{
		kind: models.KindEvent,
		create: func(ctx context.Context, u *models.User, in models.PostInput) (*models.Post, error) {
			e, err := db.CreateEvent(ctx, u, models.EventInput{PostInput: in, Title: ptr("Event"),
				StartDate: ptr("2030-01-01 10:00"), EndDate: ptr("2030-01-01 11:00"), Lang: "en"})
			if err != nil {
				return nil, err
			}
			return &e.Post, nil
		},
		get: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(db.GetEvent(ctx, u, ref, "en"))
		},
		update: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(db.UpdateEvent(ctx, u, ref, models.EventInput{Title: ptr("Changed"), Lang: "en"}))
		},
		trash: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(db.TrashEvent(ctx, u, ref, "en"))
		},
		delete: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(db.DeleteEvent(ctx, u, ref, "en"))
		},
		list: func(ctx context.Context, u *models.User) ([]int64, error) {
			p, err := db.ListEvents(ctx, u, models.EventFilter{PerPage: 500, Lang: "en"})
			if err != nil {
				return nil, err
			}
			return ids(p.Items, func(e *models.Event) int64 { return e.ID }), nil
		},
	}
}

// linkedOps is postOps for venues or organizers; input makes a valid
// input with the given name.
func linkedOps[T any, In any](l models.Linked[T, In], post func(*T) *models.Post, input func(name string, p models.PostInput) In) postOps {
	return postOps{
		kind: l.Kind(),
		create: func(ctx context.Context, u *models.User, in models.PostInput) (*models.Post, error) {
			// A unique name: duplicate detection must not return another record.
			rec, existing, err := l.Create(ctx, u, input(fmt.Sprintf("Place %d", placeSeq.Add(1)), in), "en")
			if err != nil {
				return nil, err
			}
			if existing {
				return nil, errors.New("duplicate detection returned an existing record")
			}
			return post(rec), nil
		},
		get: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(l.Get(ctx, u, ref, "en"))
		},
		update: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(l.Update(ctx, u, ref, input("Changed", models.PostInput{}), "en"))
		},
		trash: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(l.Trash(ctx, u, ref, "en"))
		},
		delete: func(ctx context.Context, u *models.User, ref models.Ref) error {
			return second(l.Delete(ctx, u, ref, "en"))
		},
		list: func(ctx context.Context, u *models.User) ([]int64, error) {
			p, err := l.List(ctx, u, models.LinkedFilter{PerPage: 500, Lang: "en"})
			if err != nil {
				return nil, err
			}
			return ids(p.Items, func(r *T) int64 { return post(r).ID }), nil
		},
	}
}

var placeSeq atomic.Int64

// second drops the record an operation returns and keeps its error.
func second[T any](_ T, err error) error { return err }

func ids[T any](recs []*T, id func(*T) int64) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = id(r)
	}
	return out
}

func allPostOps(db *models.DB) []postOps {
	return []postOps{
		eventOps(db),
		linkedOps(db.Venues(), func(v *models.Venue) *models.Post { return &v.Post },
			func(name string, p models.PostInput) models.VenueInput {
				return models.VenueInput{PostInput: p, Venue: ptr(name)}
			}),
		linkedOps(db.Organizers(), func(o *models.Organizer) *models.Post { return &o.Post },
			func(name string, p models.PostInput) models.OrganizerInput {
				return models.OrganizerInput{PostInput: p, Organizer: ptr(name)}
			}),
	}
}

// cast is one user of each role of SPEC §6 (nil: anonymous) plus a
// contributor who owns the records that are nobody else's.
type cast struct {
	admin, owner *models.User
	roles        []*models.User
}

func newCast(t *testing.T, db *models.DB) cast {
	c := cast{roles: []*models.User{nil}}
	for _, r := range []models.Role{models.RoleSubscriber, models.RoleContributor, models.RoleAuthor,
		models.RoleEditor, models.RoleAdministrator} {
		c.roles = append(c.roles, newUser(t, db, string(r), r))
	}
	c.admin = c.roles[len(c.roles)-1]
	c.owner = newUser(t, db, "owner", models.RoleContributor)
	return c
}

func roleOf(u *models.User) models.Role {
	if u == nil {
		return ""
	}
	return u.Role
}

func who(u *models.User) string {
	if u == nil {
		return "anonymous"
	}
	return string(u.Role)
}

// checkRefusal fails unless err is nil when allowed, and an ErrForbidden
// (a *ForbiddenError that knows whether the caller signed in) otherwise.
func checkRefusal(t *testing.T, name string, u *models.User, allowed bool, err error) {
	t.Helper()
	if allowed {
		if err != nil {
			t.Errorf("%s: refused or failed: %v", name, err)
		}
		return
	}
	var fe *models.ForbiddenError
	if !errors.As(err, &fe) || !errors.Is(err, models.ErrForbidden) {
		t.Errorf("%s: want ErrForbidden, got %v", name, err)
		return
	}
	if fe.SignedIn != (u != nil) {
		t.Errorf("%s: SignedIn=%v for %s", name, fe.SignedIn, who(u))
	}
}

// TestOperationsEnforceSPEC6 calls every operation on events, venues and
// organizers as each role, on own and others' records in each status, and
// expects ErrForbidden exactly where SPEC §6 refuses. A refused change
// leaves the record as it was.
func TestOperationsEnforceSPEC6(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		for _, ops := range allPostOps(db) {
			for _, u := range c.roles {
				for _, own := range []bool{true, false} {
					if own && u == nil {
						continue
					}
					author := c.owner
					if own {
						author = u
					}
					for _, status := range []string{models.StatusPublish, models.StatusDraft, models.StatusPending} {
						for _, op := range []string{"get", "update", "trash", "delete"} {
							name := fmt.Sprintf("%s %s as %s, own=%v, %s", op, ops.kind, who(u), own, status)
							rec, err := ops.create(ctx, c.admin, models.PostInput{AuthorID: &author.ID, Status: ptr(status)})
							if err != nil {
								t.Fatalf("%s: fixture: %v", name, err)
							}
							allowed := specMay(roleOf(u), op, own, status)
							err = ops.run(ctx, op, u, models.ByID(rec.ID))
							checkRefusal(t, name, u, allowed, err)
							if !allowed && op != "get" {
								if err := ops.get(ctx, c.admin, models.ByID(rec.ID)); err != nil {
									t.Errorf("%s: the refused %s changed the record: %v", name, op, err)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestRefusalsSayWhy checks the reason of typical refusals, which the API
// and the admin turn into the same message.
func TestRefusalsSayWhy(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		sub, contrib, author := c.roles[1], c.roles[2], c.roles[3]
		for _, ops := range allPostOps(db) {
			mk := func(by *models.User, status string) models.Ref {
				rec, err := ops.create(ctx, c.admin, models.PostInput{AuthorID: &by.ID, Status: ptr(status)})
				if err != nil {
					t.Fatal(err)
				}
				return models.ByID(rec.ID)
			}
			for _, cs := range []struct {
				name string
				u    *models.User
				op   string
				ref  models.Ref
				want models.Refusal
			}{
				{"anonymous update", nil, "update", mk(c.owner, models.StatusDraft), models.RefusalNotAllowed},
				{"subscriber trash", sub, "trash", mk(c.owner, models.StatusDraft), models.RefusalNotAllowed},
				{"anonymous read of a draft", nil, "get", mk(c.owner, models.StatusDraft), models.RefusalNotAccessible},
				{"contributor edits own published", contrib, "update", mk(contrib, models.StatusPublish), models.RefusalPublished},
				{"author edits another's", author, "update", mk(c.owner, models.StatusDraft), models.RefusalNotOwner},
				{"author deletes own for good", author, "delete", mk(author, models.StatusDraft), models.RefusalNotAllowed},
			} {
				err := ops.run(ctx, cs.op, cs.u, cs.ref)
				var fe *models.ForbiddenError
				if !errors.As(err, &fe) || fe.Reason != cs.want || fe.Kind != ops.kind {
					t.Errorf("%s %s: got %v, want %s on %s", ops.kind, cs.name, err, cs.want, ops.kind)
				}
			}
		}
	})
}

// TestCreatesFollowSPEC6: contributors and up create; only editors and up
// create in another user's name; a contributor's publish becomes pending.
func TestCreatesFollowSPEC6(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		for _, ops := range allPostOps(db) {
			for _, u := range c.roles {
				r := rank[roleOf(u)]
				rec, err := ops.create(ctx, u, models.PostInput{Status: ptr(models.StatusPublish)})
				checkRefusal(t, fmt.Sprintf("create %s as %s", ops.kind, who(u)), u, r >= 2, err)
				if err == nil {
					want := models.StatusPublish
					if r == 2 {
						want = models.StatusPending
					}
					if rec.Status != want || rec.AuthorID != u.ID {
						t.Errorf("create %s as %s: status %q author %d, want %q by %d", ops.kind, who(u), rec.Status, rec.AuthorID, want, u.ID)
					}
				}
				_, err = ops.create(ctx, u, models.PostInput{AuthorID: &c.owner.ID})
				checkRefusal(t, fmt.Sprintf("create %s as %s in another's name", ops.kind, who(u)), u, r >= 4, err)
			}
		}
	})
}

// TestListsApplyVisibility: with no status filter, a list shows what SPEC
// §6 lets the caller see; a status filter other than publish from an
// anonymous caller or a subscriber is invalid.
func TestListsApplyVisibility(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		for _, ops := range allPostOps(db) {
			type rec struct {
				id     int64
				author *models.User
				status string
			}
			var recs []rec
			for _, by := range append([]*models.User{c.owner}, c.roles[2:]...) {
				for _, status := range []string{models.StatusPublish, models.StatusDraft, models.StatusPending, models.StatusPrivate} {
					p, err := ops.create(ctx, c.admin, models.PostInput{AuthorID: &by.ID, Status: ptr(status)})
					if err != nil {
						t.Fatal(err)
					}
					recs = append(recs, rec{p.ID, by, status})
				}
				p, err := ops.create(ctx, c.admin, models.PostInput{AuthorID: &by.ID})
				if err != nil {
					t.Fatal(err)
				}
				if err := ops.trash(ctx, c.admin, models.ByID(p.ID)); err != nil {
					t.Fatal(err)
				}
			}
			for _, u := range c.roles {
				r := rank[roleOf(u)]
				var want []int64
				for _, x := range recs {
					own := u != nil && x.author.ID == u.ID
					if x.status == models.StatusPublish || r >= 4 || (r >= 2 && own) {
						want = append(want, x.id)
					}
				}
				got, err := ops.list(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("list %s as %s: got %v, want %v", ops.kind, who(u), got, want)
				}
			}
		}
		for _, u := range c.roles[:2] {
			_, err := db.ListEvents(ctx, u, models.EventFilter{Statuses: []string{models.StatusDraft}})
			if !errors.Is(err, models.ErrInvalid) {
				t.Errorf("events status=draft as %s: %v, want invalid", who(u), err)
			}
			_, err = db.Venues().List(ctx, u, models.LinkedFilter{Statuses: []string{models.StatusDraft}})
			if !errors.Is(err, models.ErrInvalid) {
				t.Errorf("venues status=draft as %s: %v, want invalid", who(u), err)
			}
		}
	})
}

// TestWritesRefuseBeforeLookingUp: a caller who may not write a kind at
// all learns nothing about which ids exist (SPEC §9): the refusal comes
// before the lookup, for unknown ids as for known ones.
func TestWritesRefuseBeforeLookingUp(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		unknown := models.ByID(1 << 40)
		for _, ops := range allPostOps(db) {
			for _, u := range c.roles[:2] {
				for _, op := range []string{"update", "trash", "delete"} {
					checkRefusal(t, fmt.Sprintf("%s unknown %s as %s", op, ops.kind, who(u)), u, false, ops.run(ctx, op, u, unknown))
				}
				_, err := ops.create(ctx, u, models.PostInput{AuthorID: ptr(int64(1 << 40))})
				checkRefusal(t, fmt.Sprintf("create %s as %s for an unknown author", ops.kind, who(u)), u, false, err)
			}
			contrib := c.roles[2]
			if err := ops.run(ctx, "update", contrib, unknown); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("update unknown %s as contributor: %v, want not found", ops.kind, err)
			}
		}
		for _, tax := range []string{models.TaxCategory, models.TaxTag} {
			for _, u := range c.roles[:3] {
				_, err := db.UpdateTerm(ctx, u, tax, 1<<40, models.TermInput{Name: ptr("x")}, "en")
				checkRefusal(t, fmt.Sprintf("update unknown %s as %s", tax, who(u)), u, false, err)
				_, err = db.DeleteTerm(ctx, u, tax, 1<<40, "en")
				checkRefusal(t, fmt.Sprintf("delete unknown %s as %s", tax, who(u)), u, false, err)
			}
		}
	})
}

// TestTermOperationsFollowSPEC6: authors and up manage categories, editors
// and up manage tags; everyone reads terms.
func TestTermOperationsFollowSPEC6(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		for _, tax := range []string{models.TaxCategory, models.TaxTag} {
			min := 4
			if tax == models.TaxCategory {
				min = 3
			}
			for i, u := range c.roles {
				allowed := rank[roleOf(u)] >= min
				name := fmt.Sprintf("%s as %s", tax, who(u))
				fixture, err := db.CreateTerm(ctx, c.admin, tax, models.TermInput{Name: ptr(fmt.Sprintf("fixture %d", i))}, "en")
				if err != nil {
					t.Fatal(err)
				}
				_, err = db.CreateTerm(ctx, u, tax, models.TermInput{Name: ptr(fmt.Sprintf("new %d", i))}, "en")
				checkRefusal(t, "create "+name, u, allowed, err)
				_, err = db.UpdateTerm(ctx, u, tax, fixture.ID, models.TermInput{Description: ptr("changed")}, "en")
				checkRefusal(t, "update "+name, u, allowed, err)
				_, err = db.GetTerm(ctx, u, tax, fixture.ID, "en")
				checkRefusal(t, "get "+name, u, true, err)
				_, err = db.DeleteTerm(ctx, u, tax, fixture.ID, "en")
				checkRefusal(t, "delete "+name, u, allowed, err)
			}
		}
	})
}

// TestMediaFollowsUploadFiles: uploading and listing images of the library
// need WordPress's upload_files (authors, editors, administrators);
// contributors, subscribers and anonymous callers are refused before
// anything is read. Changing or deleting an image takes its uploader or an
// editor (edit_post and delete_post on the attachment): an author may not
// change an administrator's image, but may change her own.
func TestMediaFollowsUploadFiles(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c := newCast(t, db)
		img, err := db.CreateMedia(ctx, c.admin, models.MediaUpload{FileName: "a.png", Data: imagetest.PNG(8, 8)})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range c.roles {
			may := rank[roleOf(u)] >= 3
			if got := models.MayUploadMedia(u); got != may {
				t.Errorf("MayUploadMedia(%s) = %v", who(u), got)
			}
			_, err := db.CreateMedia(ctx, u, models.MediaUpload{FileName: "b.png", Data: imagetest.PNG(8, 8)})
			checkRefusal(t, "upload as "+who(u), u, may, err)
			_, _, err = db.ListMedia(ctx, u, models.MediaQuery{})
			checkRefusal(t, "list as "+who(u), u, may, err)
			_, err = db.UpdateMedia(ctx, u, img.ID, models.MediaText{AltText: ptr("alt")})
			checkRefusal(t, "update of another's image as "+who(u), u, rank[roleOf(u)] >= 4, err)
			if rank[roleOf(u)] < 4 {
				checkRefusal(t, "delete of another's image as "+who(u), u, false, db.DeleteMedia(ctx, u, img.ID, false))
			}
			if may {
				own, err := db.CreateMedia(ctx, u, models.MediaUpload{FileName: "own.png", Data: imagetest.PNG(8, 8)})
				if err != nil {
					t.Fatal(err)
				}
				_, err = db.UpdateMedia(ctx, u, own.ID, models.MediaText{AltText: ptr("mine")})
				checkRefusal(t, "update of an own image as "+who(u), u, true, err)
				checkRefusal(t, "delete of an own image as "+who(u), u, true, db.DeleteMedia(ctx, u, own.ID, false))
			}
		}
	})
}
