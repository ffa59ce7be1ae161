package api

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
	rs = append(rs, mediaRoutes()...)
	rs = append(rs, allRevisionRoutes()...)
	rs = append(rs, changeRoutes()...)
	return rs
}
