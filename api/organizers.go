package api

import (
	"fmt"

	"github.com/kalends/kalends/models"
)

// organizerOps serves /organizers, /organizers/{id} and /organizers/by-slug/{slug}.
var organizerOps = &linkedOps[models.Organizer]{
	kind:   models.KindOrganizer,
	plural: "organizers",
	meta:   func(v *models.Organizer) (int64, int64, string) { return v.ID, v.AuthorID, v.Status },
	get: func(r *Request, id int64) (*models.Organizer, error) {
		return r.Deps.DB.GetOrganizer(r.Ctx, id, r.Lang)
	},
	bySlug: func(r *Request, slug string) (*models.Organizer, error) {
		return r.Deps.DB.GetOrganizerBySlug(r.Ctx, slug, r.Lang)
	},
	list: func(r *Request, f models.LinkedFilter) ([]*models.Organizer, int, error) {
		return r.Deps.DB.ListOrganizers(r.Ctx, f)
	},
	present: presentOrganizer,
	write:   organizerWriteArgs,
	create: func(r *Request, m map[string]any) (*models.Organizer, []Invalid, error) {
		in, invalid := organizerInputFromMap(r, m)
		if len(invalid) > 0 {
			return nil, invalid, nil
		}
		v, _, err := r.Deps.DB.CreateOrganizer(r.Ctx, r.User, in, r.Lang)
		return v, nil, err
	},
	update: func(r *Request, id int64, m map[string]any) (*models.Organizer, []Invalid, error) {
		in, invalid := organizerInputFromMap(r, m)
		if len(invalid) > 0 {
			return nil, invalid, nil
		}
		v, err := r.Deps.DB.UpdateOrganizer(r.Ctx, r.User, id, in, r.Lang)
		if err != nil {
			return nil, nil, fmt.Errorf("api: update organizer %d: %w", id, err)
		}
		return v, nil, nil
	},
	trash: func(r *Request, id int64) (*models.Organizer, error) {
		return r.Deps.DB.TrashOrganizer(r.Ctx, id, r.Lang)
	},
	remove: func(r *Request, id int64) error { return r.Deps.DB.DeleteOrganizer(r.Ctx, id) },
}

// organizerRoutes declares the organizer routes (SPEC §5, TEC §7).
func organizerRoutes() []Route { return organizerOps.routes() }
