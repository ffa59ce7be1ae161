package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/kalends/kalends/models"
)

// searchMergeIdle is how long the search merger waits after a step that
// found nothing to merge. After one that merged it waits twice as long as
// the step took, searchMergeBreath at least: it holds the write lock a
// third of the time at most, and the writers that waited for the lock
// (SQLite's busy handler polls, every 100 ms at the longest) take it
// between two steps. At 1,000,000 events, steps 20 ms apart took the lock
// from the API's writes: PATCH fell to 38 req/s while the calendar's large
// segment was merged.
const (
	searchMergeIdle   = 5 * time.Second
	searchMergeBreath = 20 * time.Millisecond
)

// runSearchMerger merges the segments of the search's indexes
// (models.MergeSearch) until ctx ends: a step after another while there is
// something to merge (with a pause twice as long as each), then every
// searchMergeIdle. No write merges them itself (a merge may take in the
// segment of a whole calendar), so this keeps a search's segments few. Errors are logged; the next step tries
// again. Every instance may run it: the steps take the write lock in turn.
func runSearchMerger(ctx context.Context, db *models.DB, logger *slog.Logger) {
	for {
		start := time.Now()
		worked, err := db.MergeSearch(ctx, models.SearchMergePages)
		wait := searchMergeIdle
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("kalends: merge the search index", "err", err)
		case worked:
			wait = max(searchMergeBreath, 2*time.Since(start))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
