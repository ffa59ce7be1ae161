package main

import (
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/api"
	"github.com/kalends/kalends/internal/cachegen"
	"github.com/kalends/kalends/internal/respcache"
	"github.com/kalends/kalends/models"
)

// partsShare is the part of --cache-size the parts cache takes when whole
// answers are cached too: an answer cached whole needs no parts, so parts
// serve the answers that miss (distinct arguments, signed-in readers).
// With --cache-answers=false the parts take all of it.
const partsShare = 4

// searchListsShare is the part of --cache-size the words' lists of events
// that searches read take (models.DB.KeepSearchLists): at a million
// events a word found in 5% of a two-year window is a list of about
// 400 KB, and the bench's twenty rotating words fit in 8 of the default
// 64 MB.
const searchListsShare = 8

// caches builds the response cache (nil with --cache-answers=false) and
// the parts cache lists are assembled from, and keeps the words' lists of
// searches in db, within one byte budget: --cache-size; none of them when
// it is 0. The two caches read the generation through w,
// the instance's one Watch: with a Watch each, an answer could be stored
// under a generation the parts cache had not read yet, built from parts of
// the one before, and stay so until the next write
// (TestAnInstanceNeverCachesAnAnswerOlderThanItsGeneration).
func caches(w *cachegen.Watch, db *models.DB, site *models.Site, cfg *Config) (*respcache.Cache, *api.PartCache) {
	lists := cfg.CacheSize / searchListsShare
	db.KeepSearchLists(lists)
	if cfg.CacheAnswersOff {
		return nil, api.NewPartCache(w, cfg.CacheSize-lists)
	}
	parts := cfg.CacheSize / partsShare
	return respcache.New(w, site, cfg.CacheSize-parts-lists), api.NewPartCache(w, parts)
}

// partsWrote makes the parts cache read the generation before its next
// part once a request that may write (the admin's forms too) is done.
func partsWrote(parts *api.PartCache) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead && m != fiber.MethodOptions {
			parts.Wrote()
		}
		return err
	}
}
