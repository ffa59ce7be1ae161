package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/kalends/kalends/models"
)

// changesPruneInterval is how often the change feed forgets the changes
// older than --changes-keep. Pruning is idempotent, so every instance may
// run it (no lease): two at once delete the same rows.
const changesPruneInterval = time.Hour

// runChangesPruner forgets the changes older than keep now and then every
// changesPruneInterval until ctx ends. Errors are logged; the next round
// tries again.
func runChangesPruner(ctx context.Context, db *models.DB, keep time.Duration, logger *slog.Logger) {
	t := time.NewTicker(changesPruneInterval)
	defer t.Stop()
	for {
		n, err := db.PruneChanges(ctx, time.Now().UTC().Add(-keep))
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("kalends: prune the change feed", "err", err)
		case n > 0:
			logger.Info("kalends: pruned the change feed", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
