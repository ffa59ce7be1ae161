package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/browsertest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

const webhookForm = `[data-testid="webhook-form"]`

// hookReceiver counts the webhooks it is sent, by webhook-id.
type hookReceiver struct {
	mu   sync.Mutex
	byID map[string]int
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if h.byID == nil {
		h.byID = map[string]int{}
	}
	h.byID[r.Header.Get("webhook-id")]++
	h.mu.Unlock()
	_, _ = w.Write([]byte(`{"ok":true,"受信":"済み"}`))
}

func (h *hookReceiver) count(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// TestWebhooksPage: an administrator adds an endpoint in English and in
// Japanese; its secret shows once; a change to a published event appears
// among its deliveries (htmx refreshes the table) as delivered; sending it
// again reaches the receiver a second time with the same webhook-id.
func TestWebhooksPage(t *testing.T) {
	rc := &hookReceiver{}
	hooks := httptest.NewServer(rc)
	defer hooks.Close()
	srv := browsertest.StartServer(t, "--webhook-allow-private", "true", "--webhook-lease", "2s")
	admin := srv.User(t, models.RoleAdministrator)
	b := bundle(t)
	for _, lang := range []string{"en", "ja"} {
		p := srv.Page(t)
		p.SignIn(admin)
		p.SetLanguage(lang)
		if st := p.ClickAndWait(`[data-testid="nav-webhooks"]`); st != http.StatusOK || p.Path() != "/admin/webhooks" {
			t.Fatalf("%s: webhooks link: %d on %s", lang, st, p.Path())
		}
		p.Fill(webhookForm, "url", "not an address")
		if st := p.Submit(webhookForm); st != http.StatusUnprocessableEntity {
			t.Fatalf("%s: bad address: %d", lang, st)
		}
		if got, want := p.Text(`[data-testid="error-url"]`), b.T(lang, "reason.webhooks.bad_url", nil); got != want {
			t.Errorf("%s: message %q, want %q", lang, got, want)
		}
		p.Fill(webhookForm, "url", hooks.URL+"/"+lang)
		p.Fill(webhookForm, "description", map[string]string{"en": "Newsletter", "ja": "ニュースレター配信"}[lang])
		p.Choose(webhookForm, "events", "event.created", "event.updated")
		if st := p.Submit(webhookForm); st != http.StatusOK {
			t.Fatalf("%s: add: %d", lang, st)
		}
		secret := p.Text(`[data-testid="webhook-secret-value"]`)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("%s: secret %q", lang, secret)
		}
		if p.Count(`[data-testid="webhook-secret-copy"]:not([hidden])`) != 1 {
			t.Errorf("%s: no copy button", lang)
		}
		p.Visit("/admin/webhooks")
		if strings.Contains(p.HTML(), secret) || p.Count(`[data-testid="webhook-secret"]`) != 0 {
			t.Errorf("%s: the secret shows a second time", lang)
		}
		p.ClickAndWait(`tr:last-child [data-testid="webhook-link"]`) // the newest
		if p.Text(`[data-testid="webhook-url"]`) != hooks.URL+"/"+lang {
			t.Fatalf("%s: endpoint page of %q", lang, p.Text(`[data-testid="webhook-url"]`))
		}
		// A change: in English it appears without reloading (htmx polls
		// the table every 5 s); in Japanese the page is reloaded once it
		// is delivered (quicker).
		srv.CreateEvent(t, admin, map[string]any{"title": map[string]string{"en": "Harbour jazz", "ja": "港のジャズ"}[lang], "status": "publish",
			"start_date": "2031-08-01 19:00:00", "end_date": "2031-08-01 21:00:00"})
		if lang != "en" {
			ep := lastEndpoint(t, srv)
			modelstest.WaitFor(t, 20*time.Second, func() error {
				n, err := srv.DB.IDB().NewSelect().Model((*models.WebhookDelivery)(nil)).Where("endpoint_id = ?", ep).
					Where("status = ?", models.DeliveryDelivered).Count(context.Background())
				if err == nil && n == 0 {
					err = errors.New("no delivery delivered yet")
				}
				return err
			})
			p.Visit(p.Path())
		}
		browsertest.WaitUntil(p, `!!document.querySelector('[data-testid="delivery"][data-status="delivered"]')`)
		if got := p.Text(`[data-testid="delivery"] code`); got != "event.created" {
			t.Errorf("%s: delivery type %q", lang, got)
		}
		if got := p.Text(`[data-testid="delivery"] .webhook-response`); !strings.Contains(got, "受信") {
			t.Errorf("%s: response %q", lang, got)
		}
		var msgID string
		ep := lastEndpoint(t, srv)
		if err := srv.DB.IDB().NewSelect().Model((*models.WebhookDelivery)(nil)).Column("msg_id").Where("endpoint_id = ?", ep).
			Limit(1).Scan(context.Background(), &msgID); err != nil {
			t.Fatal(err)
		}
		if st := p.ClickAndWait(`[data-testid="delivery-redeliver"]`); st != http.StatusOK {
			t.Fatalf("%s: redeliver: %d", lang, st)
		}
		if got, want := p.Text(`[data-testid="flash"]`), b.T(lang, "admin.webhooks.flash.redelivered", nil); got != want {
			t.Errorf("%s: flash %q, want %q", lang, got, want)
		}
		modelstest.WaitFor(t, 20*time.Second, func() error {
			if n := rc.count(msgID); n < 2 {
				return fmt.Errorf("%s: %s received %d times, want 2", lang, msgID, n)
			}
			return nil
		})
		if n := rc.count(msgID); n != 2 {
			t.Errorf("%s: %s received %d times, want 2", lang, msgID, n)
		}
	}
}

// lastEndpoint is the id of the newest endpoint.
func lastEndpoint(t *testing.T, srv *browsertest.Server) int64 {
	t.Helper()
	var id int64
	if err := srv.DB.IDB().NewSelect().Model((*models.WebhookEndpoint)(nil)).ColumnExpr("MAX(id)").Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// webhookShotEndpoint is the endpoint of the screenshots, with a
// delivery in each state.
var webhookShotEndpoint int64

// seedWebhooks registers an endpoint for the screenshots and gives it
// deliveries: delivered, failed (a 503 page), and pending after a
// refused address.
func seedWebhooks(t *testing.T, srv *browsertest.Server) {
	t.Helper()
	ctx := context.Background()
	ep, err := srv.DB.AddWebhook(ctx, models.Console, "https://search.example.jp/hooks/kalends", "サイト内検索 · Site search",
		[]string{"event.created", "event.updated", "event.removed", "venue.updated"}, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.AddWebhook(ctx, models.Console, "https://newsletter.example.com/webhooks/calendar-updates", "", nil,
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"); err != nil {
		t.Fatal(err)
	}
	webhookShotEndpoint = ep.ID
	now := time.Now().UTC().Truncate(time.Second)
	for i, d := range []models.WebhookDelivery{
		{Type: "event.created", Status: models.DeliveryDelivered, Attempts: 1, LastStatus: 200, LastMS: 84, LastResponse: `{"indexed":true}`},
		{Type: "event.updated", Status: models.DeliveryFailed, Attempts: 14, LastStatus: 503, LastMS: 10000,
			LastResponse: "<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable to service your request.</p></body></html>"},
		{Type: "venue.updated", Status: models.DeliveryPending, Attempts: 2, LastMS: 3, LastResponse: "dial tcp 10.0.0.7:443: address refused (private)"},
		{Type: "event.removed", Status: models.DeliveryDelivered, Attempts: 3, LastStatus: 204, LastMS: 152},
	} {
		d.EndpointID, d.MsgID, d.Kind, d.RecordID, d.Seq, d.Body = ep.ID, fmt.Sprintf("msg_shot%d", i), strings.Split(d.Type, ".")[0], int64(i+1), int64(i+1), "{}"
		d.NextAt, d.CreatedAt, d.UpdatedAt = now.Add(time.Hour), now.Add(-time.Duration(4-i)*time.Hour), now.Add(-time.Duration(4-i)*time.Hour)
		if _, err := srv.DB.IDB().NewInsert().Model(&d).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func init() {
	signedIn = append(signedIn,
		shot{"webhooks-added", 200, func(p *browsertest.Page, lang string) int {
			p.VisitIn(lang, "/admin/webhooks")
			p.Fill(webhookForm, "url", "https://app.example.org/kalends/"+lang)
			p.Fill(webhookForm, "description", map[string]string{"en": "Mobile app", "ja": "スマホアプリ"}[lang])
			p.Choose(webhookForm, "events", "event.created", "event.updated", "event.removed")
			return p.Submit(webhookForm)
		}},
		shot{"webhook", 200, func(p *browsertest.Page, lang string) int {
			return p.VisitIn(lang, fmt.Sprintf("/admin/webhooks/%d", webhookShotEndpoint))
		}},
	)
}
