package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/kalends/kalends/models"
)

// runSearchCost measures the store's CPU time per search of the rotating
// row's words (searchWords; or words, separated by |), a page of 50 and
// its total as the API asks them, read in English, against the list of 50
// in a three-month window, on the seeded calendar dsn (a copy of a bench
// database: opening it migrates it). It needs no server, so it shows the
// store's cost apart from HTTP and the machine's load on wrk.
//
//	go run ./bench -search-cost sqlite:/tmp/copy-of-bench-100000.db
func runSearchCost(ctx context.Context, dsn, words string) error {
	db, err := models.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if _, err := db.MigrateAndReport(ctx); err != nil {
		return err
	}
	// The API's windows (UTC): the list of 50 from today for three
	// months; a search in the default one, from yesterday for 24 months.
	now := time.Now().UTC()
	y, m, d := now.Date()
	from, to := time.Date(y, m, d, 0, 0, 0, 0, time.UTC), time.Date(y, m+3, d, 23, 59, 59, 0, time.UTC)
	dfrom, dto := time.Date(y, m, d-1, 0, 0, 0, 0, time.UTC), time.Date(y, m+24, d, 23, 59, 59, 0, time.UTC)
	list := func(search []string) (int, error) {
		f := models.EventFilter{PerPage: 50, Lang: "en", Search: search, StartMin: &dfrom, EndMax: &dto}
		if search == nil {
			f.StartMin, f.EndMax = &from, &to
		}
		p, err := db.ListEvents(ctx, nil, f)
		if err != nil {
			return 0, err
		}
		return p.Total, nil
	}
	rounds, queries := 5, searchWords
	if words != "" {
		rounds, queries = 50, strings.Split(words, "|")
	}
	measure := func(name string, search []string) (time.Duration, error) {
		n, err := list(search) // warm
		if err != nil {
			return 0, err
		}
		c0, w0 := cpuTime(), time.Now()
		for range rounds {
			if _, err := list(search); err != nil {
				return 0, err
			}
		}
		cpu := (cpuTime() - c0) / time.Duration(rounds)
		fmt.Printf("%-28s total %6d  cpu %8.3f ms  wall %8.3f ms\n", name, n, msOf(cpu), msOf(time.Since(w0)/time.Duration(rounds)))
		return cpu, nil
	}
	base, err := measure("list of 50 in a window", nil)
	if err != nil {
		return err
	}
	var sum time.Duration
	for _, w := range queries {
		c, err := measure(w, models.SearchWords(w))
		if err != nil {
			return err
		}
		sum += c
	}
	fmt.Printf("search: %.3f ms CPU per search (mean of %d words); list of 50: %.3f ms\n",
		msOf(sum/time.Duration(len(queries))), len(queries), msOf(base))
	return nil
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime is the CPU time (user and system) of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
