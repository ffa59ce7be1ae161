package api

import "github.com/kalends/kalends/models"

// tagRoutes declares /tags and /tags/{id}: the routes of categories
// (categories.go) without parent, as TEC's post_tag taxonomy is flat.
func tagRoutes() []Route { return termRoutes(models.TaxTag) }
