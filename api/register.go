package api

import "github.com/gofiber/fiber/v2"

// Routes returns the whole route table in registration order (which is the
// key order of the namespace index): index, doc, events, venues,
// organizers, categories, tags. Each resource file declares its own routes.
func Routes() []Route {
	var rs []Route
	rs = append(rs, indexRoutes()...)
	rs = append(rs, eventRoutes()...)
	rs = append(rs, venueRoutes()...)
	rs = append(rs, organizerRoutes()...)
	rs = append(rs, categoryRoutes()...)
	rs = append(rs, tagRoutes()...)
	return rs
}

// Register mounts the API on app: /cal/events/v1/… and /{lang}/cal/events/v1/….
func Register(app *fiber.App, d *Deps) {
	_ = app
	_ = d
	// The dispatcher (route matching, argument pipeline, auth, errors) is
	// built in router.go.
}

// Placeholders until each resource file declares its routes.
func indexRoutes() []Route     { return nil }
func venueRoutes() []Route     { return nil }
func organizerRoutes() []Route { return nil }
func categoryRoutes() []Route  { return nil }
func tagRoutes() []Route       { return nil }
