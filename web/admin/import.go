package admin

import (
	"errors"
	"io"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// importPage is GET /admin/import.
func (h *handler) importPage(c *fiber.Ctx) error {
	return h.renderImport(c, fiber.StatusOK, "", nil)
}

func (h *handler) renderImport(c *fiber.Ctx, status int, errMsg string, rep *ical.Report) error {
	lay := h.layoutFor(c, "admin.import.title")
	v := importView{Layout: lay, CSRF: lay.CSRF, MayImport: models.ListAccess(ui.UserOf(c), models.KindEvent).Create,
		Error: errMsg, Report: rep, CSVMaxMB: h.importMax() >> 20}
	if v.MayImport {
		v.CSVJobs = h.recentImports(c)
	}
	return render(c, status, importForm(v))
}

// importFile is POST /admin/import: the file's events written as the
// signed-in user, in one transaction (internal/ical), then the report.
func (h *handler) importFile(c *fiber.Ctx) error {
	lang := h.pickLang(c)
	t := func(id string) string { return h.d.I18n.T(lang, id, nil) }
	fh, err := c.FormFile("file")
	if err != nil {
		return h.renderImport(c, fiber.StatusUnprocessableEntity, t("admin.import.no_file"), nil)
	}
	f, err := fh.Open()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	items, err := ical.Read(io.LimitReader(f, 1<<20))
	if err != nil {
		return h.renderImport(c, fiber.StatusUnprocessableEntity, t("admin.import.not_calendar"), nil)
	}
	rep, err := ical.Import(c.UserContext(), h.d.DB, ui.UserOf(c), items, lang)
	var fe *models.ForbiddenError
	var ve *models.ValidationError
	switch {
	case errors.As(err, &fe):
		return h.renderImport(c, fiber.StatusForbidden, t(fe.MessageID()), nil)
	case errors.As(err, &ve) && len(ve.Fields) > 0:
		fld := ve.Fields[0]
		return h.renderImport(c, fiber.StatusUnprocessableEntity,
			h.d.I18n.T(lang, "admin.import.refused", map[string]any{"Field": fld.Field, "Reason": h.d.I18n.T(lang, fld.Reason, fld.Data)}), nil)
	case err != nil:
		return err
	}
	return h.renderImport(c, fiber.StatusOK, "", &rep)
}
