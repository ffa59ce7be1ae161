package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestWebhookRoundKeepsItsLease: a round whose delivery takes longer than
// the lease keeps renewing it, so no other instance can take it meanwhile
// (one instance delivers at a time); when the lease is lost all the same,
// the round stops and its request is cancelled. On both dialects.
func TestWebhookRoundKeepsItsLease(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := testApp(t, db, io.Discard)
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "boss", Password: "password-boss", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		arrived := make(chan struct{}, 1)
		cancelled := make(chan struct{}, 1)
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			// The body read whole, so that the server notices the client
			// going away (it watches the connection only after that).
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case arrived <- struct{}{}:
			default:
			}
			select { // a very slow endpoint: it does not answer
			case <-r.Context().Done():
				select {
				case cancelled <- struct{}{}:
				default:
				}
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		if _, err := db.AddWebhook(ctx, admin, srv.URL+"/hook", "遅い受信者", nil, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"); err != nil {
			t.Fatal(err)
		}
		str := func(s string) *string { return &s }
		if _, err := db.CreateEvent(ctx, admin, models.EventInput{Title: str("Nuit blanche à Séoul"), Lang: "en",
			StartDate: str("2031-06-01 20:00:00"), EndDate: str("2031-06-02 06:00:00")}); err != nil {
			t.Fatal(err)
		}
		w := newWebhookWorker(db, app, &Config{WebhookConcurrency: 1, WebhookAllowPrivate: true}, slog.New(slog.DiscardHandler))
		w.tick, w.lease = 10*time.Millisecond, 3*time.Second // MySQL keeps whole seconds: renewals every second leave two spare
		wctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); w.run(wctx) }()
		defer func() { stop(); <-done }()
		select {
		case <-arrived:
		case <-time.After(30 * time.Second):
			t.Fatal("the delivery never reached the endpoint")
		}
		// For over twice the lease's length while the request hangs,
		// another instance cannot take the lease.
		until := time.Now().Add(2 * w.lease)
		for time.Now().Before(until) {
			ok, err := db.TryLease(ctx, webhookLease, "other-instance", w.lease)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				t.Fatal("another instance took the webhook lease while a round was delivering")
			}
			select {
			case <-cancelled:
				t.Fatal("the request was cancelled while the round held its lease")
			case <-time.After(100 * time.Millisecond):
			}
		}
		// The lease lost all the same (given back, then taken by another
		// instance): the round stops and its request is cancelled.
		if err := db.ReleaseLease(ctx, webhookLease, w.holder); err != nil {
			t.Fatal(err)
		}
		if ok, err := db.TryLease(ctx, webhookLease, "other-instance", time.Minute); err != nil || !ok {
			t.Fatal("the other instance could not take the released lease:", ok, err)
		}
		select {
		case <-cancelled:
		case <-time.After(30 * time.Second):
			t.Fatal(errors.New("the round went on delivering after its lease was lost"))
		}
	})
}
