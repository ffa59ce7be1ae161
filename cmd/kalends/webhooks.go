package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/api"
	"github.com/kalends/kalends/internal/safehttp"
	"github.com/kalends/kalends/internal/webhook"
	"github.com/kalends/kalends/models"
)

// webhookLease names the lease that lets one instance send webhooks at a
// time.
const webhookLease = "webhooks"

// webhookWorker turns the change feed into deliveries (models.EnqueueWebhooks)
// and sends them (Standard Webhooks), under a lease.
type webhookWorker struct {
	db     *models.DB
	app    *fiber.App // renders data as the anonymous API shows it
	client *safehttp.Client
	logger *slog.Logger
	holder string

	concurrency int           // deliveries in flight at most (--webhook-concurrency)
	lease       time.Duration // the lease's life without renewal (--webhook-lease)
	tick        time.Duration // between rounds when idle
	retryBase   time.Duration // first retry delay; doubles, with jitter
	retryMax    time.Duration // longest delay between two attempts
	retryFor    time.Duration // after this, a delivery has failed
	pauseAfter  time.Duration // an endpoint failing this long is paused

	mu      sync.Mutex
	attempt int // attempts made (figures for tests and logs)
}

func newWebhookWorker(db *models.DB, app *fiber.App, cfg *Config, logger *slog.Logger) *webhookWorker {
	return &webhookWorker{
		db: db, app: app, logger: logger, holder: publisherHolder(),
		client: safehttp.New(safehttp.Config{AllowPrivate: cfg.WebhookAllowPrivate, Timeout: 10 * time.Second, MaxRedirects: -1,
			UserAgent: "Kalends-Webhooks/" + version}),
		concurrency: max(cfg.WebhookConcurrency, 1), tick: time.Second, lease: cmp.Or(cfg.WebhookLease, 30*time.Second),
		retryBase: 5 * time.Second, retryMax: time.Hour, retryFor: 24 * time.Hour, pauseAfter: 5 * 24 * time.Hour,
	}
}

// run works until ctx ends, then gives the lease back.
func (w *webhookWorker) run(ctx context.Context) {
	defer func() { _ = w.db.ReleaseLease(context.WithoutCancel(ctx), webhookLease, w.holder) }()
	for {
		busy := w.round(ctx)
		wait := w.tick
		if busy {
			wait = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// round enqueues and sends what is due if this instance holds the lease;
// it reports whether there may be more to do at once.
func (w *webhookWorker) round(ctx context.Context) bool {
	ok, err := w.db.TryLease(ctx, webhookLease, w.holder, w.lease)
	if err != nil || !ok {
		return false
	}
	// A round may outlast the lease (deliveries to slow endpoints take
	// up to 10 s each): the lease is renewed while it runs, and a round
	// that loses it stops, cancelling its requests (they are retried), so
	// that one instance delivers at a time.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer w.keepLease(ctx, cancel)()
	made, err := w.db.EnqueueWebhooks(ctx, 200, w.message)
	if err != nil && ctx.Err() == nil {
		w.logger.Warn("kalends: webhook deliveries", "err", err)
	}
	due, err := w.db.DueDeliveries(ctx, time.Now().UTC(), 8*w.concurrency)
	if err != nil {
		if ctx.Err() == nil {
			w.logger.Warn("kalends: webhook deliveries due", "err", err)
		}
		return false
	}
	sem := make(chan struct{}, w.concurrency)
	var wg sync.WaitGroup
	for i := range due {
		sem <- struct{}{}
		if ctx.Err() != nil { // the lease was lost, or the server stops
			<-sem
			break
		}
		wg.Add(1)
		go func(d *models.WebhookDelivery) {
			defer func() { <-sem; wg.Done() }()
			w.send(ctx, d)
		}(&due[i])
	}
	wg.Wait()
	return made > 0 || len(due) > 0
}

// keepLease renews the webhook lease every third of its length until the
// returned function is called, and calls lost when a renewal fails (the
// lease expired and another instance took it, or the database cannot say).
func (w *webhookWorker) keepLease(ctx context.Context, lost context.CancelFunc) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(w.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if ok, err := w.db.TryLease(ctx, webhookLease, w.holder, w.lease); !ok || err != nil {
				if ctx.Err() == nil {
					w.logger.Warn("kalends: webhook lease lost during a round; its requests stop and are retried", "err", err)
				}
				lost()
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

// message is a change as an endpoint receives it: the type, and the body
// with data as the anonymous API shows the record in the site's default
// language ({kind, id} when it is removed or no longer readable).
func (w *webhookWorker) message(ep *models.WebhookEndpoint, c models.Change) (string, []byte, bool, error) {
	typ := string(c.Kind) + "." + c.Action
	if !ep.Wants(typ) {
		return "", nil, false, nil
	}
	var data any = map[string]any{"kind": c.Kind, "id": c.ID}
	if c.Action != models.ChangeRemoved {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, api.RecordPath(c.Kind, c.ID), nil)
		res, err := w.app.Test(req, -1)
		if err != nil {
			return "", nil, false, err
		}
		b, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			return "", nil, false, err
		}
		if res.StatusCode == http.StatusOK {
			data = json.RawMessage(b)
		}
	}
	body, err := json.Marshal(map[string]any{"type": typ, "timestamp": c.At.UTC().Format(time.RFC3339), "data": data})
	return typ, body, true, err
}

// send makes one attempt of delivery d and records it.
func (w *webhookWorker) send(ctx context.Context, d *models.WebhookDelivery) {
	w.mu.Lock()
	w.attempt++
	w.mu.Unlock()
	res := models.DeliveryResult{}
	start := time.Now()
	ep, err := w.db.WebhookEndpointByID(ctx, d.EndpointID)
	if err == nil {
		res.Status, res.Response, err = w.post(ctx, ep, d)
	}
	res.Duration = time.Since(start)
	res.OK = err == nil && res.Status >= 200 && res.Status < 300
	if err != nil {
		res.Response = err.Error()
	}
	if !res.OK {
		delay := min(w.retryBase<<min(d.Attempts, 30), w.retryMax)
		delay = delay/2 + time.Duration(rand.Int64N(int64(delay/2)+1)) //nolint:gosec // G404: jitter (half to whole), no secret.
		res.Retry = time.Now().UTC().Add(delay)
		res.GiveUp = time.Since(d.CreatedAt) > w.retryFor
	}
	if err := w.db.RecordDelivery(context.WithoutCancel(ctx), d, res, w.pauseAfter); err != nil {
		w.logger.Warn("kalends: record a webhook delivery", "err", err)
	}
}

// post sends the delivery's body, signed, and returns the status and the
// answer's first bytes. Redirects are not followed (safehttp, MaxRedirects
// -1): a 3xx is an error.
func (w *webhookWorker) post(ctx context.Context, ep *models.WebhookEndpoint, d *models.WebhookDelivery) (int, string, error) {
	ts := time.Now().Unix()
	sig, err := webhook.Signatures(ep.Secrets(time.Now()), d.MsgID, ts, []byte(d.Body))
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader([]byte(d.Body)))
	if err != nil {
		return 0, "", fmt.Errorf("webhook: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", d.MsgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	res, err := w.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = res.Body.Close() }()
	first, _ := io.ReadAll(io.LimitReader(res.Body, 255))
	return res.StatusCode, string(first), nil
}
