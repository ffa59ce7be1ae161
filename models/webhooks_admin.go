package models

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// The admin's side of webhooks (issue 34, /admin/webhooks): reading one
// endpoint and its deliveries, editing its description and types,
// pausing and resuming it. Administrators only, like the rest.

// Bounds of an endpoint's columns (migration 20261212000300_webhooks).
const (
	WebhookURLMax         = 2048
	WebhookDescriptionMax = 255
)

// CheckWebhookInput checks an endpoint's URL (when checkURL) and
// description against the columns, as AddWebhook and UpdateWebhook store
// them.
func CheckWebhookInput(url, description string, checkURL bool) error {
	v := &ValidationError{}
	if checkURL {
		switch {
		case !ValidURL(url):
			v.Fields = append(v.Fields, Invalid("url", "reason.webhooks.bad_url", nil).Fields...)
		case len(url) > WebhookURLMax:
			v.Fields = append(v.Fields, Invalid("url", "reason.too_long", map[string]any{"Max": WebhookURLMax}).Fields...)
		}
	}
	if utf8.RuneCountInString(description) > WebhookDescriptionMax {
		v.Fields = append(v.Fields, Invalid("description", "reason.too_long", map[string]any{"Max": WebhookDescriptionMax}).Fields...)
	}
	if len(v.Fields) > 0 {
		return v
	}
	return nil
}

// GetWebhook reads endpoint id, for an administrator.
func (s *Store) GetWebhook(ctx context.Context, u *User, id int64) (*WebhookEndpoint, error) {
	if err := mayManageWebhooks(u); err != nil {
		return nil, err
	}
	return s.WebhookEndpointByID(ctx, id)
}

// UpdateWebhook saves endpoint id's description and the types it takes
// (none: every type).
func (s *Store) UpdateWebhook(ctx context.Context, u *User, id int64, description string, events []string) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	if err := CheckWebhookInput("", description, false); err != nil {
		return err
	}
	return s.updateWebhook(ctx, id, func(q *bun.UpdateQuery) {
		q.Set("description = ?", NFC(strings.TrimSpace(description))).Set("events = ?", strings.Join(events, ","))
	})
}

// SetWebhookActive pauses or resumes endpoint id. Resuming forgets its
// failures, so that the next one does not pause it again at once; what
// was pending while it was paused is sent then.
func (s *Store) SetWebhookActive(ctx context.Context, u *User, id int64, active bool) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	return s.updateWebhook(ctx, id, func(q *bun.UpdateQuery) {
		q.Set("active = ?", active)
		if active {
			q.Set("failing_since = NULL")
		}
	})
}

// updateWebhook runs one update of endpoint id; 404 when there is none.
func (s *Store) updateWebhook(ctx context.Context, id int64, set func(*bun.UpdateQuery)) error {
	q := s.db.NewUpdate().Model((*WebhookEndpoint)(nil)).Where("id = ?", id)
	set(q)
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: webhook %d: %w", id, mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// MySQL counts changed rows: an update that changes nothing is 0.
		if _, err := s.WebhookEndpointByID(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// WebhookDeliveries returns endpoint id's newest deliveries, at most
// limit, for an administrator.
func (s *Store) WebhookDeliveries(ctx context.Context, u *User, id int64, limit int) ([]WebhookDelivery, error) {
	if err := mayManageWebhooks(u); err != nil {
		return nil, err
	}
	var out []WebhookDelivery
	if err := s.db.NewSelect().Model(&out).Where("endpoint_id = ?", id).OrderExpr("id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: deliveries of webhook %d: %w", id, mapErr(err))
	}
	return out, nil
}

// LastWebhookDeliveries returns each endpoint's newest delivery, by
// endpoint id, in one query.
func (s *Store) LastWebhookDeliveries(ctx context.Context, u *User) (map[int64]WebhookDelivery, error) {
	if err := mayManageWebhooks(u); err != nil {
		return nil, err
	}
	var rows []WebhookDelivery
	err := s.db.NewSelect().Model(&rows).
		Where("webhook_delivery.id IN (SELECT MAX(d.id) FROM webhook_deliveries d GROUP BY d.endpoint_id)").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: last webhook deliveries: %w", mapErr(err))
	}
	out := make(map[int64]WebhookDelivery, len(rows))
	for _, d := range rows {
		out[d.EndpointID] = d
	}
	return out, nil
}

// RedeliverWebhookOf sends delivery id of endpoint ep again; 404 when the
// endpoint has no such delivery.
func (s *Store) RedeliverWebhookOf(ctx context.Context, u *User, ep, id int64) error {
	if err := mayManageWebhooks(u); err != nil {
		return err
	}
	n, err := s.db.NewSelect().Model((*WebhookDelivery)(nil)).Where("id = ?", id).Where("endpoint_id = ?", ep).Count(ctx)
	if err != nil {
		return fmt.Errorf("models: delivery %d: %w", id, mapErr(err))
	}
	if n == 0 {
		return &NotFoundError{Kind: KindUser}
	}
	return s.RedeliverWebhook(ctx, u, id)
}

// PausedWebhooks returns the endpoints paused after failing for days (the
// dashboard's notice), for an administrator; nil for anyone else.
func (s *Store) PausedWebhooks(ctx context.Context, u *User) ([]WebhookEndpoint, error) {
	if u == nil || u.Role != RoleAdministrator {
		return nil, nil
	}
	var out []WebhookEndpoint
	err := s.db.NewSelect().Model(&out).Where("active = ?", false).Where("failing_since IS NOT NULL").OrderExpr("id ASC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: paused webhooks: %w", mapErr(err))
	}
	return out, nil
}
