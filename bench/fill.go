package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// fillName is the row of the step that fills the response cache.
const fillName = "fill the response cache, distinct URLs"

// fillWorkers are the requests the fill step keeps in flight: as many as
// the server runs at once on two cores (more wait at its gate, and past
// its wait limit get 503).
const fillWorkers = 4

// cacheVars reads what the server's response cache holds and its bound
// (the debug listener's cache_bytes, cache_entries, and
// cache_answers_max_bytes: the whole answers' share of --cache-size;
// cache_max_bytes from a binary that reports no share), and the Go heap
// in use.
func cacheVars(debug string) (held, entries, maxBytes, heapInuse int64, err error) {
	b, err := get(debug + "/debug/vars")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	var v struct {
		Mem struct {
			HeapInuse int64 `json:"HeapInuse"`
		} `json:"memstats"`
		Kalends struct {
			Bytes   *int64 `json:"cache_bytes"`
			Entries int64  `json:"cache_entries"`
			Max     int64  `json:"cache_max_bytes"`
			Answers *int64 `json:"cache_answers_max_bytes"`
		} `json:"kalends"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, 0, 0, 0, err
	}
	if v.Kalends.Bytes == nil {
		return 0, 0, 0, 0, errors.New("the server does not report cache_bytes in /debug/vars")
	}
	if v.Kalends.Answers != nil {
		v.Kalends.Max = *v.Kalends.Answers
	}
	return *v.Kalends.Bytes, v.Kalends.Entries, v.Kalends.Max, v.Mem.HeapInuse, nil
}

// fillURL is the i-th of many distinct URLs whose answers are large: API
// lists of 80–100 events over windows that each start on another day, in
// the four languages, searches, and public month pages. None repeats
// among the first ten thousand.
func fillURL(i int, words []string) string {
	langs := []string{"en", "ja", "ko", "zh-hans"}
	k := i / 5
	day := time.Now().UTC().AddDate(0, 0, k%700-350)
	d := day.Format(time.DateOnly)
	lang := langs[(k/700)%4]
	switch i % 5 {
	case 0:
		return fmt.Sprintf("/cal/events/v1/events?per_page=100&start_date=%s&end_date=%s&ml_language=%s", d, day.AddDate(0, 3, 0).Format(time.DateOnly), lang)
	case 1:
		return fmt.Sprintf("/cal/events/v1/events?per_page=80&page=%d&start_date=%s&ml_language=%s", 1+k/2800, d, lang)
	case 2:
		return fmt.Sprintf("/cal/events/v1/events?per_page=100&search=%s&start_date=%s", url.QueryEscape(words[(k/700)%len(words)]), d)
	case 3:
		m := time.Now().UTC().AddDate(0, k%36-12, 0).Format("2006-01")
		return fmt.Sprintf("/%s/events/?view=month&month=%s&search=%s", langs[(k/36)%4], m, url.QueryEscape(words[(k/144)%len(words)]))
	default:
		return fmt.Sprintf("/cal/events/v1/events?per_page=100&categories=music&start_date=%s&ml_language=%s", d, lang)
	}
}

// fillCache requests distinct URLs of large answers, fillWorkers at a time, on
// a server with the response cache on, until the cache is full and twice
// its bound has gone through it (so it has evicted as much as it holds),
// or for three minutes at most, sampling the server's memory all along:
// what a long-running site's cache comes to, which a run of one URL never
// shows.
func fillCache(ctx context.Context, base, debug string, proc *os.Process, words []string) (Result, error) {
	_, _, maxBytes, _, err := cacheVars(debug)
	if err != nil {
		return Result{}, err
	}
	if maxBytes <= 0 {
		return Result{}, errors.New("the server's response cache is off")
	}
	fmt.Fprintf(os.Stderr, "  filling the response cache (%d MB)…\n", maxBytes>>20)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var next, fails, refused, read atomic.Int64
	var mu sync.Mutex
	var lat []float64
	var wg sync.WaitGroup
	start := time.Now()
	for range fillWorkers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+fillURL(i, words), nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					if ctx.Err() == nil && fails.Add(1) <= 3 {
						fmt.Fprintf(os.Stderr, "  %s: %v\n", req.URL.RequestURI(), err)
					}
					continue
				}
				n, _ := io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
				switch {
				case res.StatusCode == http.StatusServiceUnavailable:
					// Turned away at the server's gate on a busy machine:
					// counted, not a failure (nothing is cached, nothing
					// leaks).
					refused.Add(1)
				case res.StatusCode != http.StatusOK:
					if fails.Add(1) <= 3 {
						fmt.Fprintf(os.Stderr, "  %s: %s\n", req.URL.RequestURI(), res.Status)
					}
				}
				read.Add(n)
				mu.Lock()
				lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
				mu.Unlock()
			}
		})
	}
	var anon, hwm, heldMax, entries, heap int64
	full := false
	tick := time.NewTicker(100 * time.Millisecond)
	for ctx.Err() == nil {
		a, h := memory(proc.Pid)
		anon, hwm = max(anon, a), max(hwm, h)
		if b, e, _, hi, err := cacheVars(debug); err == nil {
			heldMax, entries, heap = max(heldMax, b), e, max(heap, hi)
			full = full || b >= maxBytes*9/10
		}
		if full && read.Load() >= 2*maxBytes {
			break
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	tick.Stop()
	cancel()
	wg.Wait()
	took := time.Since(start)
	a, h := memory(proc.Pid)
	anon, hwm = max(anon, a), max(hwm, h)
	slices.Sort(lat)
	r := Result{Name: fillName, Requests: int64(len(lat)), Errors: fails.Load() + refused.Load(), RSSAnon: anon, VMHWM: hwm}
	if len(lat) > 0 {
		r.ReqPerS = float64(len(lat)) / took.Seconds()
		r.P50Ms, r.P99Ms = lat[len(lat)/2], lat[len(lat)*99/100]
		r.Bytes = read.Load() / int64(len(lat))
	}
	fmt.Fprintf(os.Stderr, "  the cache held at most %.1f MB (%d answers at the end) of %d MB; %.0f MB went through it in %d requests; peak heap in use %.0f MB, RssAnon %.0f MB, VmHWM %.0f MB\n",
		float64(heldMax)/(1<<20), entries, maxBytes>>20, float64(read.Load())/(1<<20), len(lat), float64(heap)/(1<<20), float64(anon)/1024, float64(hwm)/1024)
	if refused.Load() > 0 {
		fmt.Fprintf(os.Stderr, "  %d requests were turned away at the gate (503; a busy machine)\n", refused.Load())
	}
	if !full || read.Load() < 2*maxBytes {
		fmt.Fprintf(os.Stderr, "  WARNING: in %s the cache did not fill and turn over twice (a slow calendar or a busy machine): the peak may be low\n", took.Round(time.Second))
	}
	if fails.Load() > 0 {
		// The row is kept (its errors column shows them) so that a long
		// run's other rows are written.
		fmt.Fprintf(os.Stderr, "  WARNING: %d of %d requests failed\n", fails.Load(), r.Requests)
	}
	return r, nil
}
