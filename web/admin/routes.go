package admin

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// registerAdmin mounts every /admin route, in the order Fiber must match
// them.
func (h *handler) registerAdmin(app *fiber.App) {
	// /admin without the slash, before the sign-in wall (it would otherwise
	// come back as redirect_to). Without strict routing this route also
	// sees /admin/, which goes on.
	app.Get("/admin", func(c *fiber.Ctx) error {
		if c.Path() == "/admin" {
			return c.Redirect(dashboardPath, fiber.StatusMovedPermanently)
		}
		return c.Next()
	})
	// Every /admin request: its session, its language, then the sign-in
	// wall (all but the sign-in page), then the CSRF check of every
	// state-changing request.
	admin := app.Group("/admin", h.d.Gate.Middleware(), h.d.LoadSession, h.language, h.requireUser, h.checkCSRF)
	admin.Get("/login", h.loginForm)
	admin.Post("/login", h.login)
	admin.Post("/logout", h.logout)
	admin.Post(strings.TrimPrefix(languagePath, "/admin"), h.switchLanguage)
	admin.Get("/", h.dashboard)
	admin.Get("/events", h.eventsList)
	admin.Get("/events/new", h.eventNew)
	admin.Get("/events/venue-options", h.venuePicker)
	admin.Get("/events/organizer-options", h.organizerPicker)
	admin.Post("/events/repeat-preview", h.eventRepeatPreview)
	admin.Post("/events", h.eventCreate)
	admin.Post("/events/bulk", h.eventsBulk)
	admin.Get("/events/:id/edit", h.eventEdit)
	admin.Get("/events/:id/translations/:lang", h.eventTranslation)
	admin.Post("/events/:id/translations/:lang", h.eventTranslationSave)
	admin.Get("/events/:id/move", h.eventMoveForm)
	admin.Post("/events/:id/move", h.eventMove)
	admin.Get("/events/:id/revisions/:rev", h.eventRevision)
	admin.Post("/events/:id/revisions/:rev/restore", h.eventRevisionRestore)
	admin.Post("/events/:id/:action", h.eventAction)
	admin.Post("/events/:id", h.eventSave)
	admin.Get("/docs", h.docs)
	admin.Get("/import", h.importPage)
	h.registerMediaAdmin(admin)
	admin.Post("/import", h.importFile)
	admin.Post("/import/csv", h.csvUpload)
	admin.Get("/import/csv/:id", h.csvImportPage)
	admin.Get("/import/csv/:id/progress", h.csvImportProgress)
	admin.Post("/import/csv/:id", h.csvImportSave)
	admin.Get("/calendar", h.calendar)
	admin.Get(strings.TrimPrefix(calendarEventsPath, "/admin"), h.calendarEvents)
	venuePages.mount(admin, h)
	organizerPages.mount(admin, h)
	h.registerAccounts(admin)
	h.registerTerms(admin)
	admin.Get("/settings", h.settingsPage)
	admin.Post("/settings", h.saveSettings)
	h.registerWebhooks(admin)
}

// registerAccounts mounts the users' and the signed-in user's own pages.
func (h *handler) registerAccounts(admin fiber.Router) {
	admin.Get("/users", h.users)
	admin.Get("/users/new", h.newUser)
	admin.Post("/users", h.createUser)
	admin.Get("/users/:id/edit", h.editUser)
	admin.Post("/users/:id", h.updateUser)
	admin.Post("/users/:id/password", h.resetPassword)
	admin.Post("/users/:id/delete", h.deleteUser)
	admin.Post("/users/:id/app-passwords", h.createUserAppPassword)
	admin.Post("/users/:id/app-passwords/:ap/revoke", h.revokeUserAppPassword)
	admin.Get("/profile", h.profile)
	admin.Post("/profile", h.saveProfile)
	admin.Post("/profile/password", h.changePassword)
	admin.Post("/profile/app-passwords", h.createProfileAppPassword)
	admin.Post("/profile/app-passwords/:id/revoke", h.revokeProfileAppPassword)
	admin.Post("/profile/sessions/end", h.endSession)
	admin.Post("/profile/sessions/end-others", h.endOtherSessions)
}

// registerTerms mounts the pages of event categories and tags.
func (h *handler) registerTerms(admin fiber.Router) {
	// Event categories and tags: the same routes for both, the handlers
	// told which taxonomy (bulk before :id, which would take it).
	for _, k := range []*termKind{categoriesKind, tagsKind} {
		r := strings.TrimPrefix(k.Path, "/admin")
		admin.Get(r, h.termsList(k))
		admin.Get(r+"/new", h.termNew(k))
		admin.Post(r, h.termCreate(k))
		admin.Post(r+"/bulk", h.termsBulk(k))
		admin.Get(r+"/:id/edit", h.termEdit(k))
		admin.Get(r+"/:id/translations/:lang", h.termTranslation(k))
		admin.Post(r+"/:id/translations/:lang", h.termTranslationSave(k))
		admin.Post(r+"/:id/delete", h.termDelete(k))
		admin.Post(r+"/:id", h.termSave(k))
	}
}

// Register mounts the admin on app: /admin itself, then the group of
// every admin page behind the session, language, sign-in and CSRF checks.
func Register(app *fiber.App, d *ui.Deps) {
	h := &handler{d: d}
	h.registerAdmin(app)
}

// mount registers the kind's routes.
func (p *linkedPages[T, In]) mount(r fiber.Router, h *handler) {
	base := strings.TrimPrefix(p.path, "/admin")
	r.Get(base, func(c *fiber.Ctx) error { return p.list(c, h) })
	r.Get(base+"/new", func(c *fiber.Ctx) error { return p.newForm(c, h) })
	r.Post(base, func(c *fiber.Ctx) error { return p.create(c, h) })
	r.Post(base+"/bulk", func(c *fiber.Ctx) error { return p.bulk(c, h) })
	r.Get(base+"/:id/edit", func(c *fiber.Ctx) error { return p.edit(c, h) })
	r.Get(base+"/:id/translations/:lang", func(c *fiber.Ctx) error { return p.translation(c, h, false) })
	r.Post(base+"/:id/translations/:lang", func(c *fiber.Ctx) error { return p.translation(c, h, true) })
	r.Get(base+"/:id/revisions/:rev", func(c *fiber.Ctx) error { return p.revision(c, h) })
	r.Post(base+"/:id/revisions/:rev/restore", func(c *fiber.Ctx) error { return p.restoreRevision(c, h) })
	r.Post(base+"/:id/:action", func(c *fiber.Ctx) error { return p.action(c, h) })
	r.Post(base+"/:id", func(c *fiber.Ctx) error { return p.save(c, h) })
}

func (h *handler) registerMediaAdmin(admin fiber.Router) {
	admin.Get("/media", h.mediaList)
	admin.Post("/media", h.mediaUpload)
	admin.Get("/media/picker", h.mediaPicker)
	admin.Post("/media/picker", h.mediaPickerUpload)
	admin.Get("/media/:id", h.mediaEdit)
	admin.Post("/media/:id", h.mediaSave)
	admin.Post("/media/:id/delete", h.mediaDelete)
}
