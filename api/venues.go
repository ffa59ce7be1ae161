package api

import "github.com/kalends/kalends/models"

// venueOps serves /venues, /venues/{id} and /venues/by-slug/{slug}.
var venueOps = &linkedOps[models.Venue, models.VenueInput]{
	kind:    models.KindVenue,
	plural:  "venues",
	ops:     (*models.DB).Venues,
	input:   venueInput,
	present: presentVenue,
	id:      func(v *models.Venue) int64 { return v.ID },
}

// venueRoutes declares the venue routes (SPEC §5, TEC §6).
func venueRoutes() []Route { return venueOps.routes() }
