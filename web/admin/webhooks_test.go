package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

var webhookSecretRE = regexp.MustCompile(`data-testid="webhook-secret-value">(whsec_[A-Za-z0-9+/=]+)<`)

// TestWebhooksAdmin walks /admin/webhooks as an administrator, in
// Japanese: a bad address comes back with its message and the input
// kept; an endpoint is added and its secret shown once; its description
// and types are saved; it is paused and resumed; its secret rotated (the
// old one valid for a day); a failed delivery is shown and sent again;
// the dashboard warns about an endpoint paused after failures; removing
// asks first. On both dialects.
func TestWebhooksAdmin(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newApp(t, db)
		account(t, db, "admin", models.RoleAdministrator)
		b := newBrowser(t, app)
		csrf := b.signIn("admin", "password-admin")
		b.chooseLanguage("ja", csrf)

		resp, page := b.get(webhooksPath)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Webhook のエンドポイントはまだありません") {
			t.Fatalf("empty list: %d\n%.3000s", resp.StatusCode, page)
		}
		// A bad address: 422, the message in Japanese, the input kept.
		resp, page = b.send(http.MethodPost, webhooksPath, url.Values{"_csrf": {csrf}, "url": {"ftp://例え.jp/フック"},
			"description": {"パートナー"}, "events": {"event.created"}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="error-url"`) ||
			!strings.Contains(page, `value="ftp://例え.jp/フック"`) || !strings.Contains(page, `value="event.created" checked`) {
			t.Fatalf("bad url: %d\n%.4000s", resp.StatusCode, page)
		}
		resp, page = b.send(http.MethodPost, webhooksPath, url.Values{"_csrf": {csrf}, "url": {"https://partner.example/フック"},
			"events": {"event.removed"}, "description": {strings.Repeat("長", 256)}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="error-description"`) {
			t.Fatalf("long description: %d\n%.4000s", resp.StatusCode, page)
		}
		resp, page = b.send(http.MethodPost, webhooksPath, url.Values{"_csrf": {csrf}, "url": {"https://partner.example/hook"},
			"events": {"event.deleted"}})
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="error-events"`) {
			t.Fatalf("unknown type: %d\n%.4000s", resp.StatusCode, page)
		}
		// Added: the secret shown once, never on the list after.
		resp, page = b.send(http.MethodPost, webhooksPath, url.Values{"_csrf": {csrf}, "url": {"https://partner.example/hook"},
			"description": {norm.NFD.String("서울 파트너 · Café")}, "events": {"event.created", "venue.removed"}})
		m := webhookSecretRE.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusOK || m == nil {
			t.Fatalf("add: %d\n%.4000s", resp.StatusCode, page)
		}
		eps, err := db.ListWebhooks(ctx, models.Console)
		if err != nil || len(eps) != 1 || eps[0].Secret != m[1] || eps[0].Events != "event.created,venue.removed" || eps[0].Description != "서울 파트너 · Café" {
			t.Fatalf("stored: %v %+v", err, eps)
		}
		ep := eps[0]
		_, page = b.get(webhooksPath)
		if strings.Contains(page, "whsec_") || !strings.Contains(page, "<code>event.created</code>") || !strings.Contains(page, "まだ配信はありません") {
			t.Errorf("list after add:\n%.4000s", page)
		}
		path := webhookPath(ep.ID, "")
		// Edit: description and every type (none checked).
		resp, _ = b.send(http.MethodPost, path, url.Values{"_csrf": {csrf}, "description": {"東京の検索インデックス"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		_, page = b.get(path)
		if !strings.Contains(page, "Webhook エンドポイントを保存しました。") || !strings.Contains(page, `value="東京の検索インデックス"`) ||
			strings.Contains(page, "checked") {
			t.Errorf("after save:\n%.4000s", page)
		}
		// Pause and resume.
		if resp, _ = b.send(http.MethodPost, path+"/pause", url.Values{"_csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("pause: %d", resp.StatusCode)
		}
		if _, page = b.get(path); !strings.Contains(page, `data-state="paused"`) || !strings.Contains(page, `data-testid="webhook-resume"`) {
			t.Errorf("paused:\n%.3000s", page)
		}
		if resp, _ = b.send(http.MethodPost, path+"/resume", url.Values{"_csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("resume: %d", resp.StatusCode)
		}
		// Rotate: a new secret shown once, the old one valid for a day.
		resp, page = b.send(http.MethodPost, path+"/rotate", url.Values{"_csrf": {csrf}})
		m2 := webhookSecretRE.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusOK || m2 == nil || m2[1] == m[1] || !strings.Contains(page, `data-testid="webhook-old-secret"`) {
			t.Fatalf("rotate: %d\n%.4000s", resp.StatusCode, page)
		}
		got, err := db.WebhookEndpointByID(ctx, ep.ID)
		if err != nil || got.Secret != m2[1] || got.OldSecret != m[1] || len(got.Secrets(time.Now())) != 2 || !got.Active {
			t.Fatalf("rotated: %v %+v", err, got)
		}
		// A delivery that failed for good, then paused after days of
		// failures: the dashboard says so; the page shows the delivery and
		// sends it again.
		now := time.Now().UTC().Truncate(time.Second)
		d := &models.WebhookDelivery{EndpointID: ep.ID, MsgID: "msg_admintest", Type: "event.created", Kind: "event", RecordID: 7, Seq: 1,
			Body: "{}", Status: models.DeliveryFailed, Attempts: 12, NextAt: now, LastStatus: 503, LastMS: 1234,
			LastResponse: "<html>サービス停止中</html>", CreatedAt: now, UpdatedAt: now}
		if _, err := db.IDB().NewInsert().Model(d).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.IDB().NewUpdate().Model((*models.WebhookEndpoint)(nil)).Set("active = ?", false).
			Set("failing_since = ?", now.Add(-6*24*time.Hour)).Where("id = ?", ep.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, page = b.get(dashboardPath); !strings.Contains(page, `data-testid="webhooks-paused"`) || !strings.Contains(page, path) {
			t.Errorf("dashboard without the notice:\n%.3000s", page)
		}
		_, page = b.get(path)
		for _, want := range []string{`data-status="failed"`, "HTTP 503", "1,234 ミリ秒", "&lt;html&gt;サービス停止中&lt;/html&gt;", `data-testid="delivery-redeliver"`} {
			if !strings.Contains(page, want) {
				t.Errorf("deliveries: no %q in\n%.6000s", want, page)
			}
		}
		redeliver := fmt.Sprintf("%s/deliveries/%d/redeliver", path, d.ID)
		if resp, _ = b.send(http.MethodPost, redeliver, url.Values{"_csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("redeliver: %d", resp.StatusCode)
		}
		if err := db.IDB().NewSelect().Model(d).WherePK().Scan(ctx); err != nil || d.Status != models.DeliveryPending {
			t.Errorf("redelivered: %v %s", err, d.Status)
		}
		// Another endpoint's delivery, a missing one, no CSRF token.
		if resp, _ = b.send(http.MethodPost, fmt.Sprintf("%s/deliveries/%d/redeliver", webhookPath(ep.ID+1, ""), d.ID), url.Values{"_csrf": {csrf}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("redeliver through another endpoint: %d", resp.StatusCode)
		}
		if resp, _ = b.send(http.MethodPost, redeliver, url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("redeliver without CSRF: %d", resp.StatusCode)
		}
		// Remove: a confirmation first, then gone with its deliveries.
		resp, page = b.send(http.MethodPost, path+"/delete", url.Values{"_csrf": {csrf}})
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="confirm-delete"`) {
			t.Fatalf("confirm: %d\n%.3000s", resp.StatusCode, page)
		}
		if _, err := db.WebhookEndpointByID(ctx, ep.ID); err != nil {
			t.Fatal("removed before the confirmation")
		}
		if resp, _ = b.send(http.MethodPost, path+"/delete", url.Values{"_csrf": {csrf}, "confirm": {"1"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete: %d", resp.StatusCode)
		}
		if resp, _ = b.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("after delete: %d", resp.StatusCode)
		}
		if _, page = b.get(dashboardPath); strings.Contains(page, `data-testid="webhooks-paused"`) {
			t.Error("the dashboard still warns")
		}
	})
}
