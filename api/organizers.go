package api

import "github.com/kalends/kalends/models"

// organizerOps serves /organizers, /organizers/{id} and /organizers/by-slug/{slug}.
var organizerOps = &linkedOps[models.Organizer, models.OrganizerInput]{
	kind:    models.KindOrganizer,
	plural:  "organizers",
	ops:     (*models.DB).Organizers,
	input:   organizerInput,
	present: presentOrganizer,
	id:      func(o *models.Organizer) int64 { return o.ID },
}

// organizerRoutes declares the organizer routes (SPEC §5, TEC §7).
func organizerRoutes() []Route { return organizerOps.routes() }
