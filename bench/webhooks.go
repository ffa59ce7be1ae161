package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// deliveriesName is the row of the webhook delivery rate (issue 34).
const deliveriesName = "webhook deliveries to a local receiver"

// webhookBacklog is how many changes the delivery row sends.
const webhookBacklog = 3000

// deliveryRate measures how fast a server drains a backlog of webhook
// deliveries to a receiver on loopback that answers 204 at once: an
// endpoint is registered, webhookBacklog events are imported in one
// iCalendar file while no server runs (each a created change after the
// endpoint's start), then a server starts and the time from its start to
// the last distinct delivery gives deliveries per second (ReqPerS; P50Ms
// and P99Ms are the delay from the server's start to half and 99% of
// them). The endpoint is removed at the end, so a kept calendar (-reuse)
// does not gather endpoints.
func deliveryRate(ctx context.Context, kal func(...string) (string, error), bin, db, tmp string, n int) (Result, error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var arrivals []time.Time
	all := make(chan struct{})
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return Result{}, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		id := r.Header.Get("webhook-id")
		mu.Lock()
		if id != "" && !seen[id] {
			seen[id] = true
			arrivals = append(arrivals, time.Now())
			if len(arrivals) == webhookBacklog {
				close(all)
			}
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()

	added, err := kal("webhook", "add", "--events", "event.created", "http://"+ln.Addr().String()+"/hook")
	if err != nil {
		return Result{}, err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(added), " ")
	defer func() { _, _ = kal("webhook", "remove", id) }()
	file := filepath.Join(tmp, "webhook-backlog.ics")
	if err := os.WriteFile(file, backlogICS(webhookBacklog, time.Now().UnixNano()), 0o600); err != nil {
		return Result{}, err
	}
	if _, err := kal("import", "--format", "ics", "--login", "bench", file); err != nil {
		return Result{}, err
	}
	start := time.Now()
	_, _, proc, stop, err := startServer(ctx, bin, db, tmp, fmt.Sprintf("%d-webhooks", n), append(cacheOff(), "--webhook-allow-private")...)
	if err != nil {
		return Result{}, err
	}
	defer stop()
	select {
	case <-all:
	case <-time.After(2 * time.Minute):
		mu.Lock()
		got := len(arrivals)
		mu.Unlock()
		return Result{}, fmt.Errorf("%d of %d deliveries after 2 minutes", got, webhookBacklog)
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	anon, hwm := memory(proc.Pid)
	mu.Lock()
	defer mu.Unlock()
	took := arrivals[len(arrivals)-1].Sub(start)
	at := func(q float64) float64 {
		return float64(arrivals[int(q*float64(len(arrivals)-1))].Sub(start).Microseconds()) / 1000
	}
	return Result{Name: deliveriesName, ReqPerS: webhookBacklog / took.Seconds(), P50Ms: at(0.5), P99Ms: at(0.99),
		Requests: webhookBacklog, RSSAnon: anon, VMHWM: hwm}, nil
}

// backlogICS is an iCalendar file of n new events (their UIDs carry run,
// so a kept calendar gets new ones each time), one an hour from 2031 on,
// with titles in the four languages.
func backlogICS(n int, run int64) []byte {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Kalends//bench//EN\r\n")
	titles := []string{"Concert de jazz", "夏祭りの夕べ", "재즈 피아노의 밤", "音乐节开幕"}
	t0 := time.Date(2031, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		s := t0.Add(time.Duration(i) * time.Hour)
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:bench-webhook-%d-%d@kalends.invalid\r\nDTSTAMP:20260101T000000Z\r\n"+
			"DTSTART:%s\r\nDTEND:%s\r\nSUMMARY:%s %d\r\nEND:VEVENT\r\n",
			run, i, s.Format("20060102T150405Z"), s.Add(2*time.Hour).Format("20060102T150405Z"), titles[i%len(titles)], i)
	}
	b.WriteString("END:VCALENDAR\r\n")
	return []byte(b.String())
}
