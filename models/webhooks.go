package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Webhooks (issue 34, migration 20261212000300_webhooks). Each endpoint
// reads the change feed as an anonymous reader from its own position;
// EnqueueWebhooks turns the changes it matches into deliveries and moves
// the position in one transaction, so every committed change reaches
// every matching endpoint at least once, and a rolled-back write (no
// change) none. cmd/kalends's worker sends the deliveries under a lease.

// WebhookEndpoint is a registered receiver.
type WebhookEndpoint struct {
	bun.BaseModel `bun:"table:webhook_endpoints"`

	ID          int64  `bun:"id,pk,autoincrement"`
	URL         string `bun:"url"`
	Description string `bun:"description"`
	// Events lists the event types sent ("event.created", …), comma
	// separated; empty sends every type.
	Events         string     `bun:"events"`
	Active         bool       `bun:"active"`
	Secret         string     `bun:"secret"`
	OldSecret      string     `bun:"old_secret"`
	OldSecretUntil *time.Time `bun:"old_secret_until"`
	FeedPos        int64      `bun:"feed_pos"`
	FailingSince   *time.Time `bun:"failing_since"`
	CreatedAt      time.Time  `bun:"created_at"`
}

// Wants reports whether the endpoint takes deliveries of type typ.
func (w *WebhookEndpoint) Wants(typ string) bool {
	if strings.TrimSpace(w.Events) == "" {
		return true
	}
	for _, e := range strings.Split(w.Events, ",") {
		if strings.TrimSpace(e) == typ {
			return true
		}
	}
	return false
}

// Secrets are the secrets a delivery is signed with at now: the current
// one, and the previous one during the day after a rotation.
func (w *WebhookEndpoint) Secrets(now time.Time) []string {
	out := []string{w.Secret}
	if w.OldSecret != "" && w.OldSecretUntil != nil && now.Before(*w.OldSecretUntil) {
		out = append(out, w.OldSecret)
	}
	return out
}

// WebhookDelivery is one message to one endpoint, and how its sending went.
type WebhookDelivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID           int64     `bun:"id,pk,autoincrement"`
	EndpointID   int64     `bun:"endpoint_id"`
	MsgID        string    `bun:"msg_id"`
	Type         string    `bun:"type"`
	Kind         string    `bun:"kind"`
	RecordID     int64     `bun:"record_id"`
	Seq          int64     `bun:"seq"`
	Body         string    `bun:"body,type:text"`
	Status       string    `bun:"status"`
	Attempts     int       `bun:"attempts"`
	NextAt       time.Time `bun:"next_at"`
	LastStatus   int       `bun:"last_status"`
	LastMS       int       `bun:"last_ms"`
	LastResponse string    `bun:"last_response"`
	CreatedAt    time.Time `bun:"created_at"`
	UpdatedAt    time.Time `bun:"updated_at"`
}

// The states of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// mayManageWebhooks: administrators only.
func mayManageWebhooks(u *User) error {
	if u == nil || u.Role != RoleAdministrator {
		return refuse(u, KindUser, RefusalNotAllowed)
	}
	return nil
}

// AddWebhook registers an endpoint for u (an administrator) that starts
// with the changes made from now on.
func (s *Store) AddWebhook(ctx context.Context, u *User, url, description string, events []string, secret string) (*WebhookEndpoint, error) {
	if err := mayManageWebhooks(u); err != nil {
		return nil, err
	}
	if !ValidURL(url) {
		return nil, Invalid("url", "reason.webhooks.bad_url", nil)
	}
	head, err := s.ChangesHead(ctx)
	if err != nil {
		return nil, err
	}
	w := &WebhookEndpoint{URL: url, Description: NFC(strings.TrimSpace(description)), Events: strings.Join(events, ","), Active: true,
		Secret: secret, FeedPos: head, CreatedAt: Sec(s.site.Now())}
	if _, err := s.db.NewInsert().Model(w).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: add webhook: %w", mapErr(err))
	}
	return w, nil
}

// ListWebhooks returns every endpoint, for an administrator.
func (s *Store) ListWebhooks(ctx context.Context, u *User) ([]WebhookEndpoint, error) {
	if err := mayManageWebhooks(u); err != nil {
		return nil, err
	}
	return s.webhooks(ctx, false)
}

func (s *Store) webhooks(ctx context.Context, activeOnly bool) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	q := s.db.NewSelect().Model(&out).OrderExpr("id ASC")
	if activeOnly {
		q.Where("active = ?", true)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: webhooks: %w", mapErr(err))
	}
	return out, nil
}

// RemoveWebhook deletes endpoint id and its deliveries.
func (s *Store) RemoveWebhook(ctx context.Context, u *User, id int64) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	return s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewDelete().Model((*WebhookDelivery)(nil)).Where("endpoint_id = ?", id).Exec(ctx); err != nil {
			return mapErr(err)
		}
		res, err := tx.db.NewDelete().Model((*WebhookEndpoint)(nil)).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return mapErr(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return &NotFoundError{Kind: KindUser}
		}
		return nil
	})
}

// RotateWebhookSecret gives endpoint id a new secret; the old one stays
// valid (deliveries carry both signatures) for 24 hours.
func (s *Store) RotateWebhookSecret(ctx context.Context, u *User, id int64, secret string) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	until := Sec(s.site.Now().Add(24 * time.Hour))
	_, err := s.db.NewUpdate().Model((*WebhookEndpoint)(nil)).Set("old_secret = secret").Set("old_secret_until = ?", until).
		Set("secret = ?", secret).Where("id = ?", id).Exec(ctx)
	return mapErr(err)
}

// WebhookMessage is what a change becomes for an endpoint: its type and
// the JSON body; ok false sends nothing (a type the endpoint does not take).
type WebhookMessage func(ep *WebhookEndpoint, c Change) (typ string, body []byte, ok bool, err error)

// EnqueueWebhooks turns the changes after each active endpoint's position
// (as an anonymous reader sees them) into deliveries, and moves the
// position, one endpoint and page at a time, each in one transaction. A
// position another instance moved first is left to it. It returns the
// deliveries made.
func (s *Store) EnqueueWebhooks(ctx context.Context, limit int, msg WebhookMessage) (int, error) {
	eps, err := s.webhooks(ctx, true)
	if err != nil {
		return 0, err
	}
	made := 0
	for i := range eps {
		ep := &eps[i]
		page, err := s.Changes(ctx, nil, ep.FeedPos, false, limit)
		if err != nil {
			return made, err
		}
		if page.Next == ep.FeedPos {
			continue
		}
		now := Sec(s.site.Now())
		var rows []WebhookDelivery
		for _, c := range page.Items {
			typ, body, ok, err := msg(ep, c)
			if err != nil {
				return made, err
			}
			if !ok {
				continue
			}
			rows = append(rows, WebhookDelivery{EndpointID: ep.ID, MsgID: newMsgID(), Type: typ, Kind: string(c.Kind), RecordID: c.ID,
				Seq: c.Seq, Body: string(body), Status: DeliveryPending, NextAt: now, CreatedAt: now, UpdatedAt: now})
		}
		err = s.RunInTx(ctx, func(tx *Store) error {
			res, err := tx.db.NewUpdate().Model((*WebhookEndpoint)(nil)).Set("feed_pos = ?", page.Next).
				Where("id = ?", ep.ID).Where("feed_pos = ?", ep.FeedPos).Exec(ctx)
			if err != nil {
				return mapErr(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errMoved
			}
			for i := range rows { // one by one: MySQL ids of a slice insert are guessed
				if _, err := tx.db.NewInsert().Model(&rows[i]).Exec(ctx); err != nil {
					return mapErr(err)
				}
			}
			return nil
		})
		if errors.Is(err, errMoved) {
			continue
		}
		if err != nil {
			return made, fmt.Errorf("models: enqueue webhooks: %w", err)
		}
		made += len(rows)
	}
	return made, nil
}

var errMoved = errors.New("models: another instance moved the position")

// DueDeliveries returns up to limit pending deliveries due at now, the
// oldest first, at most one per endpoint and record (the earliest pending
// one), so a record's changes reach an endpoint in commit order. A paused
// endpoint's wait until it is resumed.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	err := s.db.NewSelect().Model(&out).Where("webhook_delivery.status = ?", DeliveryPending).Where("webhook_delivery.next_at <= ?", Sec(now)).
		Where("NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.endpoint_id = webhook_delivery.endpoint_id "+
			"AND e.kind = webhook_delivery.kind AND e.record_id = webhook_delivery.record_id AND e.status = ? AND e.id < webhook_delivery.id)",
			DeliveryPending).
		Where("EXISTS (SELECT 1 FROM webhook_endpoints p WHERE p.id = webhook_delivery.endpoint_id AND p.active = ?)", true).
		OrderExpr("webhook_delivery.id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: due deliveries: %w", mapErr(err))
	}
	return out, nil
}

// WebhookEndpointByID reads one endpoint (the worker's, no user).
func (s *Store) WebhookEndpointByID(ctx context.Context, id int64) (*WebhookEndpoint, error) {
	w := &WebhookEndpoint{}
	if err := s.db.NewSelect().Model(w).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: webhook %d: %w", id, mapErr(err))
	}
	return w, nil
}

// DeliveryResult is how one attempt went.
type DeliveryResult struct {
	OK       bool
	Status   int
	Duration time.Duration
	Response string    // the answer's first bytes, or the error
	Retry    time.Time // when to try again (unused when OK)
	GiveUp   bool      // failed for good (past the retry period)
}

// RecordDelivery stores an attempt of delivery d, and the endpoint's
// failing state: the first failure is remembered, a success forgets it,
// and an endpoint failing for pauseAfter is paused.
func (s *Store) RecordDelivery(ctx context.Context, d *WebhookDelivery, r DeliveryResult, pauseAfter time.Duration) error {
	now := Sec(s.site.Now())
	status := DeliveryPending
	switch {
	case r.OK:
		status = DeliveryDelivered
	case r.GiveUp:
		status = DeliveryFailed
	}
	resp := r.Response
	if len(resp) > 255 {
		resp = strings.ToValidUTF8(resp[:255], "")
	}
	return s.RunInTx(ctx, func(tx *Store) error {
		_, err := tx.db.NewUpdate().Model((*WebhookDelivery)(nil)).Set("status = ?", status).Set("attempts = attempts + 1").
			Set("next_at = ?", Sec(r.Retry)).Set("last_status = ?", r.Status).Set("last_ms = ?", int(r.Duration.Milliseconds())).
			Set("last_response = ?", resp).Set("updated_at = ?", now).Where("id = ?", d.ID).Exec(ctx)
		if err != nil {
			return mapErr(err)
		}
		q := tx.db.NewUpdate().Model((*WebhookEndpoint)(nil)).Where("id = ?", d.EndpointID)
		if r.OK {
			_, err = q.Set("failing_since = NULL").Exec(ctx)
			return mapErr(err)
		}
		if _, err = q.Set("failing_since = COALESCE(failing_since, ?)", now).Exec(ctx); err != nil {
			return mapErr(err)
		}
		_, err = tx.db.NewUpdate().Model((*WebhookEndpoint)(nil)).Set("active = ?", false).Where("id = ?", d.EndpointID).
			Where("failing_since < ?", now.Add(-pauseAfter)).Exec(ctx)
		return mapErr(err)
	})
}

// RedeliverWebhook sends delivery id again (a failed one, from the admin).
func (s *Store) RedeliverWebhook(ctx context.Context, u *User, id int64) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	_, err := s.db.NewUpdate().Model((*WebhookDelivery)(nil)).Set("status = ?", DeliveryPending).
		Set("next_at = ?", Sec(s.site.Now())).Where("id = ?", id).Exec(ctx)
	return mapErr(err)
}

// newMsgID is a fresh webhook-id: kept with the delivery, the same on
// every retry.
func newMsgID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "msg_" + base64.RawURLEncoding.EncodeToString(b)
}
