package admin

import (
	"github.com/kalends/kalends/i18n"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/webhook"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// Webhook endpoints (issue 34): administrators register, edit, pause,
// resume and remove them, rotate their secret, and see and redeliver
// their deliveries. models refuses everyone else (403 through the error
// handler); the worker of cmd/kalends sends what is stored here.

const webhooksPath = "/admin/webhooks"

// webhookDeliveryRows is how many of an endpoint's newest deliveries its
// page shows.
const webhookDeliveryRows = 50

// webhookResponseShown is how much of a delivery's answer the table shows.
const webhookResponseShown = 120

// webhookKinds and webhookActions make the types an endpoint may take
// ("event.created", …), as the change feed names them.
var (
	webhookKinds   = []string{"event", "venue", "organizer", "category", "tag", "media"}
	webhookActions = []string{models.ChangeCreated, models.ChangeUpdated, models.ChangeRemoved}
)

// webhookFields are the inputs of the endpoint forms.
var webhookFields = []string{"url", "description", "events"}

// webhookPath is the path of endpoint id's page, with suffix.
func webhookPath(id int64, suffix string) string {
	return webhooksPath + "/" + strconv.FormatInt(id, 10) + suffix
}

// webhookTypeRow is one kind in the types grid: a checkbox per action.
type webhookTypeRow struct {
	Kind, Label string
	Boxes       []webhookTypeBox
}

type webhookTypeBox struct {
	Value, Label string
	Checked      bool
}

// webhookTypes is the grid of types with those of events checked.
func webhookTypes(l layoutView, events []string) []webhookTypeRow {
	out := make([]webhookTypeRow, 0, len(webhookKinds))
	for _, k := range webhookKinds {
		r := webhookTypeRow{Kind: k, Label: l.T("admin.webhooks.kind." + k)}
		for _, a := range webhookActions {
			v := k + "." + a
			r.Boxes = append(r.Boxes, webhookTypeBox{Value: v, Label: l.T("admin.webhooks.action." + a), Checked: slices.Contains(events, v)})
		}
		out = append(out, r)
	}
	return out
}

// formEvents reads the checked types; an unknown one is a message.
func (h *handler) formEvents(c *fiber.Ctx, lang string) ([]string, formErrors) {
	var out []string
	for _, v := range c.Context().PostArgs().PeekMulti("events") {
		e := string(v)
		k, a, _ := strings.Cut(e, ".")
		if !slices.Contains(webhookKinds, k) || !slices.Contains(webhookActions, a) {
			return nil, h.fieldError(lang, "events", "admin.webhooks.bad_type", map[string]any{"Type": e})
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, formErrors{}
}

// splitEvents is an endpoint's stored types as a list (nil: all).
func splitEvents(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// webhookRow is one endpoint in the list.
type webhookRow struct {
	ID                    int64
	URL, Description      string
	Types                 []string // nil: every type
	Active                bool
	Href                  string
	Last                  *deliveryRow
	FailingSince, FailISO string
}

// deliveryRow is one delivery in a table.
type deliveryRow struct {
	ID                 int64
	When, WhenISO      string
	Type               string
	Status, StateLabel string
	HTTP               string // the answer's status, "" when none came
	Duration           string
	Attempts           string
	Response           string
	Redeliver          string // the form's action, "" while pending
}

func (h *handler) deliveryRow(l layoutView, ep int64, d *models.WebhookDelivery) deliveryRow {
	at := d.UpdatedAt
	r := deliveryRow{ID: d.ID, When: ui.FormatDateTime(l.Lang, at.In(h.d.Site.Zone())), WhenISO: at.UTC().Format(time.RFC3339),
		Type: d.Type, Status: d.Status, StateLabel: l.T("admin.webhooks.delivery." + d.Status),
		Attempts: strconv.Itoa(d.Attempts), Response: d.LastResponse}
	if d.LastStatus != 0 {
		r.HTTP = strconv.Itoa(d.LastStatus)
	}
	if d.Attempts > 0 {
		r.Duration = h.d.I18n.T(l.Lang, "admin.webhooks.ms", map[string]any{"MS": i18n.Number(l.Lang, d.LastMS)})
	}
	if rs := []rune(r.Response); len(rs) > webhookResponseShown {
		r.Response = string(rs[:webhookResponseShown]) + "…"
	}
	if d.Status != models.DeliveryPending {
		r.Redeliver = webhookPath(ep, "/deliveries/"+strconv.FormatInt(d.ID, 10)+"/redeliver")
	}
	return r
}

// webhooksView is the list of endpoints and the form that adds one.
type webhooksView struct {
	Layout layoutView
	Errors formErrors
	Rows   []webhookRow
	// The form's input (kept when it comes back with messages).
	URL, Description string
	Types            []webhookTypeRow
	// Secret is the secret of the endpoint just added, shown once.
	Secret, SecretURL string
}

// webhooks lists the endpoints.
func (h *handler) webhooks(c *fiber.Ctx) error {
	v, err := h.webhooksList(c, formErrors{}, nil)
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, webhooksPage(v))
}

func (h *handler) webhooksList(c *fiber.Ctx, fe formErrors, events []string) (webhooksView, error) {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lay := h.layoutFor(c, "admin.webhooks.title")
	v := webhooksView{Layout: lay, Errors: fe, Types: webhookTypes(lay, events)}
	eps, err := h.d.DB.ListWebhooks(ctx, u)
	if err != nil {
		return v, err
	}
	last, err := h.d.DB.LastWebhookDeliveries(ctx, u)
	if err != nil {
		return v, err
	}
	for i := range eps {
		ep := &eps[i]
		r := webhookRow{ID: ep.ID, URL: ep.URL, Description: ep.Description, Types: splitEvents(ep.Events), Active: ep.Active,
			Href: webhookPath(ep.ID, "")}
		if d, ok := last[ep.ID]; ok {
			dr := h.deliveryRow(lay, ep.ID, &d)
			r.Last = &dr
		}
		if ep.FailingSince != nil {
			r.FailingSince = ui.FormatDateTime(lay.Lang, ep.FailingSince.In(h.d.Site.Zone()))
			r.FailISO = ep.FailingSince.UTC().Format(time.RFC3339)
		}
		v.Rows = append(v.Rows, r)
	}
	return v, nil
}

// createWebhook adds an endpoint and shows its secret once; invalid input
// comes back (422) with the messages and the input kept.
func (h *handler) createWebhook(c *fiber.Ctx) error {
	ctx, u := c.UserContext(), ui.UserOf(c)
	lang := h.pickLang(c)
	url, desc := strings.TrimSpace(c.FormValue("url")), strings.TrimSpace(c.FormValue("description"))
	events, fe := h.formEvents(c, lang)
	err := models.CheckWebhookInput(url, desc, true)
	var ep *models.WebhookEndpoint
	secret := webhook.NewSecret()
	if err == nil && !fe.Any() {
		ep, err = h.d.DB.AddWebhook(ctx, u, url, desc, events, secret)
	}
	if err != nil {
		more, ok := h.validationErrors(lang, err, webhookFields...)
		if !ok {
			return err
		}
		fe.Items = append(fe.Items, more.Items...)
	}
	v, lerr := h.webhooksList(c, fe, events)
	if lerr != nil {
		return lerr
	}
	if fe.Any() {
		v.URL, v.Description = url, desc
		return render(c, fiber.StatusUnprocessableEntity, webhooksPage(v))
	}
	v.Secret, v.SecretURL = secret, ep.URL
	return render(c, fiber.StatusOK, webhooksPage(v))
}

// webhookView is one endpoint's page.
type webhookView struct {
	Layout      layoutView
	Errors      formErrors
	EP          *models.WebhookEndpoint
	Description string
	Types       []webhookTypeRow
	Deliveries  []deliveryRow
	// OldUntil is when the previous secret stops being valid, "" when
	// there is none.
	OldUntil, OldUntilISO string
	Secret                string // a secret just made by a rotation, shown once
	Confirm               bool   // the removal's confirmation
}

// webhookTarget reads the endpoint of the path (GetWebhook refuses
// those who may not).
func (h *handler) webhookTarget(c *fiber.Ctx) (*models.WebhookEndpoint, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	return h.d.DB.GetWebhook(c.UserContext(), ui.UserOf(c), id)
}

func (h *handler) webhookPage(c *fiber.Ctx, ep *models.WebhookEndpoint, fe formErrors) (webhookView, error) {
	lay := h.layoutFor(c, "admin.webhooks.endpoint")
	v := webhookView{Layout: lay, Errors: fe, EP: ep, Description: ep.Description, Types: webhookTypes(lay, splitEvents(ep.Events))}
	now := h.d.Site.Now()
	if ep.OldSecret != "" && ep.OldSecretUntil != nil && now.Before(*ep.OldSecretUntil) {
		v.OldUntil = ui.FormatDateTime(lay.Lang, ep.OldSecretUntil.In(h.d.Site.Zone()))
		v.OldUntilISO = ep.OldSecretUntil.UTC().Format(time.RFC3339)
	}
	ds, err := h.d.DB.WebhookDeliveries(c.UserContext(), ui.UserOf(c), ep.ID, webhookDeliveryRows)
	if err != nil {
		return v, err
	}
	for i := range ds {
		v.Deliveries = append(v.Deliveries, h.deliveryRow(lay, ep.ID, &ds[i]))
	}
	return v, nil
}

// showWebhook shows an endpoint, its forms and its deliveries.
func (h *handler) showWebhook(c *fiber.Ctx) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	v, err := h.webhookPage(c, ep, formErrors{})
	if err != nil {
		return err
	}
	return render(c, fiber.StatusOK, webhookPageView(v))
}

// saveWebhook saves an endpoint's description and types.
func (h *handler) saveWebhook(c *fiber.Ctx) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	lang := h.pickLang(c)
	desc := strings.TrimSpace(c.FormValue("description"))
	events, fe := h.formEvents(c, lang)
	if !fe.Any() {
		err = h.d.DB.UpdateWebhook(c.UserContext(), ui.UserOf(c), ep.ID, desc, events)
		if err == nil {
			h.setFlash(c, "webhook_saved")
			return c.Redirect(webhookPath(ep.ID, ""), fiber.StatusSeeOther)
		}
		if fe, _ = h.validationErrors(lang, err, webhookFields...); !fe.Any() {
			return err
		}
	}
	v, err := h.webhookPage(c, ep, fe)
	if err != nil {
		return err
	}
	v.Description, v.Types = desc, webhookTypes(v.Layout, events)
	return render(c, fiber.StatusUnprocessableEntity, webhookPageView(v))
}

// pauseWebhook and resumeWebhook stop and start an endpoint's deliveries.
func (h *handler) pauseWebhook(c *fiber.Ctx) error  { return h.setWebhookActive(c, false) }
func (h *handler) resumeWebhook(c *fiber.Ctx) error { return h.setWebhookActive(c, true) }

func (h *handler) setWebhookActive(c *fiber.Ctx, active bool) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	if err := h.d.DB.SetWebhookActive(c.UserContext(), ui.UserOf(c), ep.ID, active); err != nil {
		return err
	}
	h.setFlash(c, map[bool]string{true: "webhook_resumed", false: "webhook_paused"}[active])
	return c.Redirect(webhookPath(ep.ID, ""), fiber.StatusSeeOther)
}

// rotateWebhook gives an endpoint a new secret, shown once; the old one
// signs deliveries too for 24 hours.
func (h *handler) rotateWebhook(c *fiber.Ctx) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	secret := webhook.NewSecret()
	if err := h.d.DB.RotateWebhookSecret(c.UserContext(), ui.UserOf(c), ep.ID, secret); err != nil {
		return err
	}
	if ep, err = h.webhookTarget(c); err != nil {
		return err
	}
	v, err := h.webhookPage(c, ep, formErrors{})
	if err != nil {
		return err
	}
	v.Secret = secret
	return render(c, fiber.StatusOK, webhookPageView(v))
}

// deleteWebhook asks first (a page that works without JavaScript), then
// removes the endpoint and its deliveries.
func (h *handler) deleteWebhook(c *fiber.Ctx) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "1" {
		lay := h.layoutFor(c, "admin.webhooks.remove.title")
		return render(c, fiber.StatusOK, webhookConfirmPage(webhookView{Layout: lay, EP: ep, Confirm: true}))
	}
	if err := h.d.DB.RemoveWebhook(c.UserContext(), ui.UserOf(c), ep.ID); err != nil {
		return err
	}
	h.setFlash(c, "webhook_deleted")
	return c.Redirect(webhooksPath, fiber.StatusSeeOther)
}

// redeliverWebhook sends one delivery of the endpoint again.
func (h *handler) redeliverWebhook(c *fiber.Ctx) error {
	ep, err := h.webhookTarget(c)
	if err != nil {
		return err
	}
	d, err := pathID(c, "d")
	if err != nil {
		return err
	}
	if err := h.d.DB.RedeliverWebhookOf(c.UserContext(), ui.UserOf(c), ep.ID, d); err != nil {
		return err
	}
	h.setFlash(c, "webhook_redelivered")
	return c.Redirect(webhookPath(ep.ID, "")+"#deliveries", fiber.StatusSeeOther)
}

// registerWebhooks mounts the endpoints' pages.
func (h *handler) registerWebhooks(admin fiber.Router) {
	base := strings.TrimPrefix(webhooksPath, "/admin")
	admin.Get(base, h.webhooks)
	admin.Post(base, h.createWebhook)
	admin.Get(base+"/:id", h.showWebhook)
	admin.Post(base+"/:id/pause", h.pauseWebhook)
	admin.Post(base+"/:id/resume", h.resumeWebhook)
	admin.Post(base+"/:id/rotate", h.rotateWebhook)
	admin.Post(base+"/:id/delete", h.deleteWebhook)
	admin.Post(base+"/:id/deliveries/:d/redeliver", h.redeliverWebhook)
	admin.Post(base+"/:id", h.saveWebhook)
}

// pausedWebhook is an endpoint the dashboard warns about.
type pausedWebhook struct{ URL, Href string }

// pausedWebhooks are the endpoints paused after failing for days, for the
// dashboard's notice (none for those who do not manage webhooks).
func (h *handler) pausedWebhooks(c *fiber.Ctx) ([]pausedWebhook, error) {
	eps, err := h.d.DB.PausedWebhooks(c.UserContext(), ui.UserOf(c))
	if err != nil {
		return nil, err
	}
	out := make([]pausedWebhook, 0, len(eps))
	for _, ep := range eps {
		out = append(out, pausedWebhook{URL: ep.URL, Href: webhookPath(ep.ID, "")})
	}
	return out, nil
}
