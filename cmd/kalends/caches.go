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
	answers, parts, lists := cacheShares(cfg)
	db.KeepSearchLists(lists)
	if cfg.CacheAnswersOff {
		return nil, api.NewPartCache(w, parts)
	}
	return respcache.New(w, site, answers), api.NewPartCache(w, parts)
}

// cacheShares is the bytes of --cache-size that whole answers (0 with
// --cache-answers=false), parts and the searched words' lists take.
func cacheShares(cfg *Config) (answers, parts, lists int64) {
	lists = cfg.CacheSize / searchListsShare
	if cfg.CacheAnswersOff {
		return 0, cfg.CacheSize - lists, lists
	}
	parts = cfg.CacheSize / partsShare
	return cfg.CacheSize - parts - lists, parts, lists
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
