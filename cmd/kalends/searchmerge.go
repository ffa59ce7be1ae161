package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/kalends/kalends/models"
)

// searchMergeIdle is how long the search merger waits after a step that
// found nothing to merge; searchMergeBreath after one that merged, so that
// the writers waiting for the lock get it between two steps.
const (
	searchMergeIdle   = 5 * time.Second
	searchMergeBreath = 20 * time.Millisecond
)

// runSearchMerger merges the segments of the search's indexes
// (models.MergeSearch) until ctx ends: a step after another while there is
// something to merge, then every searchMergeIdle. No write merges them
// itself (a merge may take in the segment of a whole calendar), so this
// keeps a search's segments few. Errors are logged; the next step tries
// again. Every instance may run it: the steps take the write lock in turn.
func runSearchMerger(ctx context.Context, db *models.DB, logger *slog.Logger) {
	for {
		worked, err := db.MergeSearch(ctx, models.SearchMergePages)
		wait := searchMergeIdle
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("kalends: merge the search index", "err", err)
		case worked:
			wait = searchMergeBreath
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
