package tecimport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/safehttp"
)

// retrier is an importer that only fetches, from a loopback test server.
func retrier(retries int, backoff, maxWait time.Duration) *importer {
	return &importer{opt: &Options{Client: safehttp.New(safehttp.Config{AllowPrivate: true}), Retries: retries,
		Backoff: backoff, MaxWait: maxWait}}
}

// A 503 and a 429 are asked again, with a growing wait; the answer after
// them is the one returned.
func TestFetchRetriesBusyAnswers(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			_, _ = w.Write([]byte(`{"ok":true}`))
		}
	}))
	t.Cleanup(srv.Close)
	im := retrier(4, time.Millisecond, time.Second)
	var v map[string]bool
	if _, err := im.getJSON(context.Background(), srv.URL, &v); err != nil || !v["ok"] {
		t.Fatalf("after two busy answers: %v %v", v, err)
	}
	if n.Load() != 3 || im.retries.Load() != 2 {
		t.Errorf("%d requests, %d retries; want 3 and 2", n.Load(), im.retries.Load())
	}
}

// Retries are bounded: a site that always answers 429 gets Retries+1
// requests, then its answer is the error, with the URL and the status.
func TestFetchGivesUpAfterRetries(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	im := retrier(3, time.Millisecond, time.Second)
	_, err := im.getJSON(context.Background(), srv.URL+"/wp-json/tribe/events/v1/events", &map[string]any{})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 429 || n.Load() != 4 {
		t.Fatalf("%d requests, error %v; want 4 and a 429", n.Load(), err)
	}
}

// Retry-After is honoured (a wait longer than the backoff), up to MaxWait;
// a 404 is not asked again.
func TestFetchHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			n.Add(1)
			http.NotFound(w, r)
			return
		}
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "120") // two minutes: capped
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	im := retrier(4, time.Millisecond, 150*time.Millisecond)
	began := time.Now()
	if _, err := im.getJSON(context.Background(), srv.URL, &map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < 150*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v after Retry-After: 120 with MaxWait 150ms", d)
	}
	n.Store(0)
	if _, err := im.getJSON(context.Background(), srv.URL+"/missing", &map[string]any{}); err == nil || n.Load() != 1 {
		t.Errorf("a 404: %d requests, %v", n.Load(), err)
	}
}

// The guard's refusals are not asked again: the default client refuses
// loopback at once.
func TestFetchDoesNotRetryRefusals(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { n.Add(1) }))
	t.Cleanup(srv.Close)
	im := &importer{opt: &Options{Client: safehttp.New(safehttp.Config{}), Retries: 4, Backoff: time.Second, MaxWait: time.Second}}
	began := time.Now()
	_, err := im.fetch(context.Background(), srv.URL, 1<<20)
	if !errors.Is(err, safehttp.ErrAddress) || n.Load() != 0 || time.Since(began) > 900*time.Millisecond {
		t.Errorf("loopback with the guard on: %v, %d requests, %v", err, n.Load(), time.Since(began))
	}
}

func TestDecodeSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"%e5%a4%8f%e7%a5%ad%e3%82%8a-2026":      "夏祭り-2026",
		"%ec%84%9c%ec%9a%b8-%ec%9e%ac%ec%a6%88": "서울-재즈",
		"cafe%cc%81":                            "café", // decomposed at the source, composed here
		"plain-slug":                            "plain-slug",
		"100%-bad":                              "100%-bad", // not an escape: kept
	} {
		if got := DecodeSlug(in); got != want {
			t.Errorf("DecodeSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCostOf(t *testing.T) {
	t.Parallel()
	ev := func(cost string, values ...string) *srcEvent {
		e := &srcEvent{Cost: cost}
		e.CostDetails.Values = values
		return e
	}
	for _, c := range []struct {
		e    *srcEvent
		want string
	}{
		{ev("$25", "25"), `"25"`},
		{ev("¥1,000 至 ¥3,000", "1000", "3000"), `["1,000","3,000"]`},
		{ev("¥1,000 – ¥3,000", "1000", "2000", "3000"), `["1,000","2000","3,000"]`},
		{ev("Free", "free"), `"Free"`},
		{ev("", ""), ``},
		{ev(""), ``},
	} {
		if got := costOf(c.e); got != c.want {
			t.Errorf("costOf(%q %v) = %s, want %s", c.e.Cost, c.e.CostDetails.Values, got, c.want)
		}
	}
}
