package api

import "github.com/kalends/kalends/models"

// organizerOps serves /organizers, /organizers/{id} and /organizers/by-slug/{slug}.
var organizerOps = newLinkedOps(models.KindOrganizer, (*models.DB).Organizers, organizerInput, presentOrganizer,
	func(o *models.Organizer) *models.Post { return &o.Post })

// organizerRoutes declares the organizer routes (SPEC §5, TEC §7).
func organizerRoutes() []Route { return organizerOps.routes() }
