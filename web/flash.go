package web

import "github.com/gofiber/fiber/v2"

// Flash messages say what the last action did, on the next page
// (role="status"). The cookie holds a short key from flashes, never text,
// so nobody can make the admin show a sentence of theirs.
const flashCookie = "kalends_flash"

// flashes maps a flash key to its message id.
var flashes = map[string]string{ //nolint:gosec // G101: message ids, no credentials.
	"signed_in":  "admin.flash.signed_in",
	"signed_out": "admin.flash.signed_out",

	"user_created":         "admin.flash.user_created",
	"user_saved":           "admin.flash.user_saved",
	"user_password_set":    "admin.flash.user_password_set",
	"user_deleted":         "admin.flash.user_deleted",
	"profile_saved":        "admin.flash.profile_saved",
	"password_changed":     "admin.flash.password_changed",
	"app_password_revoked": "admin.flash.app_password_revoked",
}

// setFlash shows the message of key on the next page.
func (h *handler) setFlash(c *fiber.Ctx, key string) {
	c.Cookie(&fiber.Cookie{Name: flashCookie, Value: key, Path: "/admin/", MaxAge: 120,
		HTTPOnly: true, Secure: h.secure(), SameSite: fiber.CookieSameSiteLaxMode})
}

// takeFlash returns the message id of the pending flash ("" when none) and
// clears it.
func (h *handler) takeFlash(c *fiber.Ctx) string {
	key := c.Cookies(flashCookie)
	if key == "" {
		return ""
	}
	c.Cookie(&fiber.Cookie{Name: flashCookie, Value: "", Path: "/admin/", MaxAge: -1,
		HTTPOnly: true, Secure: h.secure(), SameSite: fiber.CookieSameSiteLaxMode})
	return flashes[key]
}
