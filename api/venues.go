package api

import "github.com/kalends/kalends/models"

// venueOps serves /venues, /venues/{id} and /venues/by-slug/{slug}.
var venueOps = newLinkedOps(models.KindVenue, (*models.DB).Venues, venueInput, presentVenue,
	func(v *models.Venue) *models.Post { return &v.Post })

// venueRoutes declares the venue routes (SPEC §5, TEC §6).
func venueRoutes() []Route { return venueOps.routes() }
