package admin

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Flash messages say what the last action did, on the next page
// (role="status"). The cookie holds a short key from flashes, never text,
// so nobody can make the admin show a sentence of theirs.
const flashCookie = "kalends_flash"

// flashes maps a flash key to its message id.
var flashes = map[string]string{ //nolint:gosec // G101: message ids, no credentials.
	"signed_in":         "admin.flash.signed_in",
	"signed_out":        "admin.flash.signed_out",
	"event_created":     "admin.flash.event_created",
	"event_saved":       "admin.flash.event_saved",
	"event_trash":       "admin.flash.event_trashed",
	"event_restore":     "admin.flash.event_restored",
	"event_delete":      "admin.flash.event_deleted",
	"event_duplicated":  "admin.flash.event_duplicated",
	"translation_saved": "admin.flash.translation_saved",
	"bulk_done":         "admin.flash.bulk_done",
	"event_moved":       "admin.flash.event_moved",
	"revision_restored": "admin.flash.revision_restored",

	"venue_created":     "admin.flash.venue_created",
	"venue_saved":       "admin.flash.venue_saved",
	"venue_trash":       "admin.flash.venue_trashed",
	"venue_restore":     "admin.flash.venue_restored",
	"venue_delete":      "admin.flash.venue_deleted",
	"organizer_created": "admin.flash.organizer_created",
	"organizer_saved":   "admin.flash.organizer_saved",
	"organizer_trash":   "admin.flash.organizer_trashed",
	"organizer_restore": "admin.flash.organizer_restored",
	"organizer_delete":  "admin.flash.organizer_deleted",

	"user_created":         "admin.flash.user_created",
	"user_saved":           "admin.flash.user_saved",
	"user_password_set":    "admin.flash.user_password_set",
	"user_deleted":         "admin.flash.user_deleted",
	"profile_saved":        "admin.flash.profile_saved",
	"settings_saved":       "settings.saved",
	"password_changed":     "admin.flash.password_changed",
	"app_password_revoked": "admin.flash.app_password_revoked",
	"session_ended":        "admin.flash.session_ended",
	"other_sessions_ended": "admin.flash.other_sessions_ended",

	"category_created": "admin.flash.category_created",
	"category_saved":   "admin.flash.category_saved",
	"category_deleted": "admin.flash.category_deleted",
	"tag_created":      "admin.flash.tag_created",
	"tag_saved":        "admin.flash.tag_saved",
	"tag_deleted":      "admin.flash.tag_deleted",
	"terms_deleted":    "admin.flash.terms_deleted",

	"webhook_saved":       "admin.webhooks.flash.saved",
	"webhook_paused":      "admin.webhooks.flash.paused",
	"webhook_resumed":     "admin.webhooks.flash.resumed",
	"webhook_deleted":     "admin.webhooks.flash.deleted",
	"webhook_redelivered": "admin.webhooks.flash.redelivered",
}

// setFlash shows the message of key on the next page.
func (h *handler) setFlash(c *fiber.Ctx, key string) {
	c.Cookie(&fiber.Cookie{Name: flashCookie, Value: key, Path: "/admin/", MaxAge: 120,
		HTTPOnly: true, Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteLaxMode})
}

// setFlashCount shows the message of key with two counts (done, failed),
// which are numbers only.
func (h *handler) setFlashCount(c *fiber.Ctx, key string, done, failed int) {
	h.setFlash(c, key+"."+strconv.Itoa(done)+"."+strconv.Itoa(failed))
}

// takeFlash returns the message id of the pending flash ("" when none) with
// its counts, and clears it.
func (h *handler) takeFlash(c *fiber.Ctx) (string, map[string]any) {
	key := c.Cookies(flashCookie)
	if key == "" {
		return "", nil
	}
	c.Cookie(&fiber.Cookie{Name: flashCookie, Value: "", Path: "/admin/", MaxAge: -1,
		HTTPOnly: true, Secure: h.d.Secure(), SameSite: fiber.CookieSameSiteLaxMode})
	parts := strings.Split(key, ".")
	if len(parts) == 3 {
		done, err1 := strconv.Atoi(parts[1])
		failed, err2 := strconv.Atoi(parts[2])
		if err1 == nil && err2 == nil {
			return flashes[parts[0]], map[string]any{"Done": done, "Failed": failed}
		}
	}
	return flashes[key], nil
}
