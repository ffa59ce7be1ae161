package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"time"

	"github.com/kalends/kalends/models"
)

// publisherLease names the lease that lets one instance publish scheduled
// records at a time.
const publisherLease = "publish-due"

// runPublisher publishes scheduled records (models.PublishDue) and extends
// recurring series to the horizon (models.ExtendSeries) every interval
// until ctx ends, on one instance at a time: it runs only while it
// holds the lease, which it renews at every round and releases when it
// stops. Errors are logged, never fatal: the next round tries again. It
// logs when this instance takes the lease, with the holder's name the
// leases table shows: an operator (and make cluster-test) can tell which
// instance publishes.
func runPublisher(ctx context.Context, db *models.DB, interval time.Duration, logger *slog.Logger) {
	holder := publisherHolder()
	defer func() {
		if err := db.ReleaseLease(context.WithoutCancel(ctx), publisherLease, holder); err != nil {
			logger.Warn("kalends: release the publisher lease", "err", err)
		}
	}()
	t := time.NewTicker(interval)
	defer t.Stop()
	held := false
	for {
		// A round whose lease query failed (a failover) tells nothing.
		if ok, answered := publishRound(ctx, db, holder, 3*interval, logger); answered {
			if ok && !held {
				logger.Info("kalends: this instance publishes scheduled records: it took the publisher lease", "holder", holder)
			}
			held = ok
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// publishRound publishes what is due if this instance holds the lease,
// and tells whether it does (answered false: the lease could not be asked
// for).
func publishRound(ctx context.Context, db *models.DB, holder string, ttl time.Duration, logger *slog.Logger) (held, answered bool) {
	ok, err := db.TryLease(ctx, publisherLease, holder, ttl)
	if err != nil {
		if ctx.Err() == nil {
			logger.Warn("kalends: publisher lease", "err", err)
		}
		return false, false
	}
	if !ok {
		return false, true // another instance publishes
	}
	// Recurring series: their occurrences are kept materialized up to
	// the horizon as it moves (a few series a round; those a round
	// misses, the next one takes).
	if n, err := db.ExtendSeries(ctx, db.Site().Horizon()); err != nil {
		if ctx.Err() == nil {
			logger.Warn("kalends: extend recurring series", "err", err)
		}
	} else if n > 0 {
		logger.Info("kalends: extended recurring series", "count", n)
	}
	for {
		n, err := db.PublishDue(ctx)
		if err != nil {
			if ctx.Err() == nil {
				logger.Warn("kalends: publish scheduled records", "err", err)
			}
			return true, true
		}
		if n > 0 {
			logger.Info("kalends: published scheduled records", "count", n)
		}
		if n == 0 || ctx.Err() != nil {
			return true, true
		}
	}
}

// publisherHolder names this process among the instances.
func publisherHolder() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}
