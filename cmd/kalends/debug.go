package main

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/internal/respcache"
	"github.com/kalends/kalends/models"
)

// memoryHeadroom is what the server may use beside its response cache
// before Go's collector works harder to stay below: requests in flight,
// the database's pools and pages, the collector's own garbage.
const memoryHeadroom = 64 << 20

// limitMemory sets Go's soft memory limit to the response cache's bound
// plus memoryHeadroom, unless GOMEMLIMIT sets one (or the cache is off).
// Without it the heap grows to twice what is live before each collection
// (GOGC=100): a full cache of 64 MB made the process hold 175 MB of
// anonymous memory, most of it garbage waiting for a collection. The
// limit is soft: live memory above it is kept, at the cost of collections
// that Go bounds to half of the CPU. The returned function puts the
// previous limit back (serve ends; tests run it in one process).
func limitMemory(cfg *Config, logger *slog.Logger) (restore func()) {
	if cfg.CacheSize <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := cfg.CacheSize + memoryHeadroom
	old := debug.SetMemoryLimit(limit)
	logger.Debug("kalends: Go memory limit from the cache size", "bytes", limit)
	return func() { debug.SetMemoryLimit(old) }
}

// debugCounters are what the debug listener reports in /debug/vars: the
// SQL queries run, which a benchmark divides by the requests it sent (and,
// beside them, the goroutines and what the response cache holds).
type debugCounters struct {
	queries atomic.Int64
}

// BeforeQuery counts a query (a bun query hook).
func (d *debugCounters) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	d.queries.Add(1)
	return ctx
}

// AfterQuery does nothing.
func (d *debugCounters) AfterQuery(context.Context, *bun.QueryEvent) {}

// startDebug serves /debug/pprof and /debug/vars on the loopback address of
// --debug-addr and counts queries; it returns the function that stops it.
// Off (a no-op) when the address is empty.
func startDebug(cfg *Config, db *models.DB, logger *slog.Logger) (func(), error) {
	if cfg.DebugAddr == "" {
		return func() {}, nil
	}
	c := &debugCounters{}
	db.AddQueryHook(c) // bun's queries and the store's prepared ones
	vars := expvar.NewMap("kalends")
	vars.Set("sql_queries", expvar.Func(func() any { return c.queries.Load() }))
	// Transactions run again after a deadlock or a failover, by reason
	// (models/txretry.go), one number each: tx_retries_deadlock,
	// tx_retries_wsrep_abort, tx_retries_wsrep_not_ready,
	// tx_retries_conn_lost, tx_retries_gave_up.
	for reason := range models.TxRetries() {
		vars.Set("tx_retries_"+reason, expvar.Func(func() any { return models.TxRetries()[reason] }))
	}
	vars.Set("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
	// The response cache: what it holds, counted as its bound counts it
	// (make bench fills it and reads these).
	vars.Set("cache_bytes", expvar.Func(func() any { b, _ := respcache.Held(); return b }))
	vars.Set("cache_entries", expvar.Func(func() any { _, n := respcache.Held(); return n }))
	vars.Set("cache_max_bytes", expvar.Func(func() any { return cfg.CacheSize }))
	// The whole answers' share of it (cacheShares), what cache_bytes fills.
	vars.Set("cache_answers_max_bytes", expvar.Func(func() any { answers, _, _ := cacheShares(cfg); return answers }))
	// The words' lists searches keep (models/event_search_lists.go),
	// within their share of cache_max_bytes.
	vars.Set("search_lists_bytes", expvar.Func(func() any { return db.SearchListStats().Bytes }))
	vars.Set("search_lists", expvar.Func(func() any { return db.SearchListStats().Lists }))
	vars.Set("search_lists_hits", expvar.Func(func() any { return db.SearchListStats().Hits }))
	vars.Set("search_lists_misses", expvar.Func(func() any { return db.SearchListStats().Misses }))
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", cfg.DebugAddr)
	if err != nil {
		return nil, fmt.Errorf("serve: debug listener on %s: %w", cfg.DebugAddr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("kalends: debug listener stopped", "err", err)
		}
	}()
	logger.Info("kalends: debug listener (profiles and counters)", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
