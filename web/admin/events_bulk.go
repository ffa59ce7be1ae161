package admin

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// bulkActions are the choices of the bulk form: trash view or not, and
// delete for those who may.
func (h *handler) bulkActions(lang string, trash bool, a models.AdminListAccess) []option {
	var ids []string
	if trash {
		ids = []string{"restore"}
		if a.Delete {
			ids = append(ids, "delete")
		}
	} else {
		ids = []string{"publish", "trash"}
	}
	out := make([]option, len(ids))
	for i, id := range ids {
		out[i] = option{Value: id, Label: h.d.I18n.T(lang, "admin.action."+id, nil)}
	}
	return out
}

// eventAction runs one record action (trash, restore, delete, duplicate)
// and goes back to the list (or, for a duplicate, to the copy's form).
func (h *handler) eventAction(c *fiber.Ctx) error {
	id, err := recordID(c)
	if err != nil {
		return err
	}
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	back := backTo(c.FormValue("back"), eventsPath, calendarPath)
	switch c.Params("action") {
	case "trash":
		_, err = h.d.DB.TrashEvent(ctx, u, models.ByID(id), lang)
	case "restore":
		draft := models.StatusDraft
		_, err = h.d.DB.UpdateEvent(ctx, u, models.ByID(id), models.EventInput{PostInput: models.PostInput{Status: &draft}})
	case "delete":
		_, err = h.d.DB.DeleteEvent(ctx, u, models.ByID(id), lang)
	case "duplicate":
		var e *models.Event
		if e, err = h.d.DB.DuplicateEvent(ctx, u, models.ByID(id)); err == nil {
			h.setFlash(c, "event_duplicated")
			return c.Redirect(eventPath(e.ID, "/edit"), fiber.StatusSeeOther)
		}
	default:
		return fiber.ErrNotFound
	}
	if err != nil {
		return err
	}
	h.setFlash(c, "event_"+c.Params("action"))
	return c.Redirect(back, fiber.StatusSeeOther)
}

// eventsBulk applies one action to the selected events; each goes through
// its own operation, so a refusal of one does not stop the others, and the
// flash says how many were done.
func (h *handler) eventsBulk(c *fiber.Ctx) error {
	ctx, u, lang := c.UserContext(), ui.UserOf(c), h.pickLang(c)
	status := func(st string) func(id int64) error {
		return func(id int64) error {
			_, err := h.d.DB.UpdateEvent(ctx, u, models.ByID(id), models.EventInput{PostInput: models.PostInput{Status: &st}})
			return err
		}
	}
	return h.bulk(c, backTo(c.FormValue("back"), eventsPath, calendarPath), map[string]func(int64) error{
		"publish": status(models.StatusPublish),
		"restore": status(models.StatusDraft),
		"trash":   func(id int64) error { _, err := h.d.DB.TrashEvent(ctx, u, models.ByID(id), lang); return err },
		"delete":  func(id int64) error { _, err := h.d.DB.DeleteEvent(ctx, u, models.ByID(id), lang); return err },
	})
}

// bulk runs the posted action on each posted id, each through its own
// operation, so a refusal of one does not stop the others; the flash says
// how many were done and how many refused. An unknown action is 400.
func (h *handler) bulk(c *fiber.Ctx, back string, actions map[string]func(id int64) error) error {
	do, ok := actions[c.FormValue("action")]
	if !ok {
		return fiber.ErrBadRequest
	}
	done, failed := 0, 0
	for _, raw := range c.Request().PostArgs().PeekMulti("ids") {
		id, perr := strconv.ParseInt(string(raw), 10, 64)
		if perr != nil {
			failed++
			continue
		}
		switch err := do(id); {
		case err == nil:
			done++
		case errors.Is(err, models.ErrForbidden), errors.Is(err, models.ErrNotFound), errors.Is(err, models.ErrInvalid):
			failed++
		default:
			return err
		}
	}
	h.setFlashCount(c, "bulk_done", done, failed)
	return c.Redirect(back, fiber.StatusSeeOther)
}
