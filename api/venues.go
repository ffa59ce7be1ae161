package api

import (
	"fmt"

	"github.com/kalends/kalends/models"
)

// venueOps serves /venues, /venues/{id} and /venues/by-slug/{slug}.
var venueOps = &linkedOps[models.Venue]{
	kind:   models.KindVenue,
	plural: "venues",
	meta:   func(v *models.Venue) (int64, int64, string) { return v.ID, v.AuthorID, v.Status },
	get: func(r *Request, id int64) (*models.Venue, error) {
		return r.Deps.DB.GetVenue(r.Ctx, id, r.Lang)
	},
	bySlug: func(r *Request, slug string) (*models.Venue, error) {
		return r.Deps.DB.GetVenueBySlug(r.Ctx, slug, r.Lang)
	},
	list: func(r *Request, f models.LinkedFilter) ([]*models.Venue, int, error) {
		return r.Deps.DB.ListVenues(r.Ctx, f)
	},
	present: presentVenue,
	write:   venueWriteArgs,
	create: func(r *Request, m map[string]any) (*models.Venue, []Invalid, error) {
		in, invalid := venueInputFromMap(r, m)
		if len(invalid) > 0 {
			return nil, invalid, nil
		}
		v, _, err := r.Deps.DB.CreateVenue(r.Ctx, r.User, in, r.Lang)
		return v, nil, err
	},
	update: func(r *Request, id int64, m map[string]any) (*models.Venue, []Invalid, error) {
		in, invalid := venueInputFromMap(r, m)
		if len(invalid) > 0 {
			return nil, invalid, nil
		}
		v, err := r.Deps.DB.UpdateVenue(r.Ctx, r.User, id, in, r.Lang)
		if err != nil {
			return nil, nil, fmt.Errorf("api: update venue %d: %w", id, err)
		}
		return v, nil, nil
	},
	trash: func(r *Request, id int64) (*models.Venue, error) {
		return r.Deps.DB.TrashVenue(r.Ctx, id, r.Lang)
	},
	remove: func(r *Request, id int64) error { return r.Deps.DB.DeleteVenue(r.Ctx, id) },
}

// venueRoutes declares the venue routes (SPEC §5, TEC §6).
func venueRoutes() []Route { return venueOps.routes() }
