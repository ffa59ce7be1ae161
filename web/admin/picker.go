package admin

import (
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The image picker of the event, venue and organizer forms: a dialog over
// the media library (picker.templ, assets/js/picker.js) whose grid, pages,
// search and upload are htmx partials answered here.

const mediaPickerPath = "/admin/media/picker"

// pickerPerPage is the number of images a page of the picker shows.
const pickerPerPage = 12

// pickerView is a page of the picker's grid.
type pickerView struct {
	Layout           layoutView
	Items            []models.Media
	Search           string
	Page, TotalPages int
	Chosen           int64 // the image just uploaded, chosen at once
	Uploaded         bool
	Error            string
}

// mediaLibrary reports whether the forms offer the picker to u: those who
// may use the media library (contributors get the URL field only).
func mediaLibrary(u *models.User) bool { return models.MayUploadMedia(u) }

// withPicker adds the image field's script to a form page (the picker
// when library is true, the preview of a URL always).
func withPicker(lay *layoutView) {
	lay.ExtraJS = append(lay.ExtraJS, assets.URL("js/picker.js"))
}

// mediaPicker is GET /admin/media/picker: a page of the grid (htmx),
// searched as the media library is.
func (h *handler) mediaPicker(c *fiber.Ctx) error {
	page, _ := strconv.Atoi(c.Query("page"))
	return h.renderPicker(c, fiber.StatusOK, c.Query("s"), max(page, 1), 0, "")
}

func (h *handler) renderPicker(c *fiber.Ctx, status int, search string, page int, chosen int64, errMsg string) error {
	u := ui.UserOf(c)
	if !mediaLibrary(u) {
		return fiber.ErrForbidden
	}
	items, total, err := h.d.DB.ListMedia(c.UserContext(), u, models.MediaQuery{Search: search, Page: page, PerPage: pickerPerPage})
	if err != nil {
		return err
	}
	v := pickerView{Layout: h.layoutFor(c, "admin.picker.title"), Items: items, Search: search, Page: page,
		TotalPages: int(math.Ceil(float64(total) / pickerPerPage)), Chosen: chosen, Uploaded: chosen != 0, Error: errMsg}
	return render(c, status, pickerGrid(v))
}

// mediaPickerUpload is POST /admin/media/picker: an upload from the picker
// (htmx, multipart), answered with the grid's first page, the new image
// first and marked to be chosen; a refusal with the grid and why (422 or
// 403, swapped in place).
func (h *handler) mediaPickerUpload(c *fiber.Ctx) error {
	lang := h.pickLang(c)
	if !mediaLibrary(ui.UserOf(c)) {
		return fiber.ErrForbidden
	}
	m, err := h.createUploaded(c)
	if errors.Is(err, errNoFile) {
		return h.renderPicker(c, fiber.StatusUnprocessableEntity, "", 1, 0, h.d.I18n.T(lang, "media.error.no_file_admin", nil))
	}
	// A refusal is shown in place with 422 whatever its kind: htmx swaps
	// 422 answers only.
	if msg, _, ok := h.mediaError(lang, err); ok {
		return h.renderPicker(c, fiber.StatusUnprocessableEntity, "", 1, 0, msg)
	} else if err != nil {
		return err
	}
	return h.renderPicker(c, fiber.StatusOK, "", 1, m.ID, "")
}

// pickerLabel is an image's name in the picker: its title, else its file
// name.
func pickerLabel(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

// pickerPageURL is the picker's page n of the images matching search.
func pickerPageURL(search string, n int) string {
	return mediaPickerPath + "?page=" + strconv.Itoa(n) + "&s=" + url.QueryEscape(search)
}

// pickerThumb is the URL of an image's thumbnail, or of the image itself
// when it is too small to have one.
func pickerThumb(m *models.Media) string {
	if m.File("thumbnail") != nil {
		return m.Path("thumbnail")
	}
	return m.Path("full")
}

// localImage reports whether an image URL is served by this site (a path),
// the only images the admin's CSP lets its pages show: an image elsewhere
// is kept as its URL, without a preview.
func localImage(u string) bool {
	return strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") && !strings.HasPrefix(u, "/\\")
}
