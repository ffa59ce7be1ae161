// Package cachegen reads the database's cache generation for the caches
// of one instance: a number every write moves in its transaction
// (models.CacheGeneration), so a write on any instance makes every
// instance's cached data stale. It is read at most every check interval,
// by one request at a time, and at once after a write of this instance
// (Wrote).
package cachegen

import (
	"context"
	"sync"
	"time"
)

// Source reads the current generation.
type Source interface {
	CacheGeneration(ctx context.Context) (int64, error)
}

// Watch is the last generation read from a Source.
type Watch struct {
	db    Source
	check time.Duration

	readMu  sync.Mutex // one database read at a time
	mu      sync.Mutex
	gen     int64
	head    int64
	checked time.Time // zero: read before the next answer
}

// New returns a Watch that reads db at most every check.
func New(db Source, check time.Duration) *Watch { return &Watch{db: db, check: check} }

// Current returns the generation at now, reading it from the database when
// the last read is older than the check interval; false when it could not
// be read (then nothing cached may be served, and the next call reads
// again).
func (w *Watch) Current(ctx context.Context, now time.Time) (int64, bool) {
	gen, _, ok := w.CurrentHead(ctx, now)
	return gen, ok
}

// HeadSource is a Source that reads, with the generation and in the same
// statement, the change feed's head (issue 34).
type HeadSource interface {
	CacheGenerationHead(ctx context.Context) (gen, head int64, err error)
}

// CurrentHead is Current with the change feed's head read in the same
// statement as the generation (0 when the Source is no HeadSource): data
// made under that generation holds every change up to it.
func (w *Watch) CurrentHead(ctx context.Context, now time.Time) (gen, head int64, ok bool) {
	if gen, head, ok := w.fresh(now); ok {
		return gen, head, true
	}
	w.readMu.Lock()
	defer w.readMu.Unlock()
	if gen, head, ok := w.fresh(now); ok { // another request just read it
		return gen, head, true
	}
	var err error
	if hs, isHead := w.db.(HeadSource); isHead {
		gen, head, err = hs.CacheGenerationHead(ctx)
	} else {
		gen, err = w.db.CacheGeneration(ctx)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.checked = time.Time{}
		return 0, 0, false
	}
	w.gen, w.head, w.checked = gen, head, now
	return gen, head, true
}

func (w *Watch) fresh(now time.Time) (gen, head int64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen, w.head, !w.checked.IsZero() && now.Sub(w.checked) < w.check
}

// Wrote makes the next Current read the database (a write of this
// instance just moved the generation).
func (w *Watch) Wrote() {
	w.mu.Lock()
	w.checked = time.Time{}
	w.mu.Unlock()
}
