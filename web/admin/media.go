package admin

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

const mediaPath = "/admin/media"

// mediaPerPage is the number of images a page of the grid shows.
const mediaPerPage = 24

func (h *handler) mediaLayout(c *fiber.Ctx, title string) layoutView {
	lay := h.layoutFor(c, title)
	lay.ExtraJS = append(lay.ExtraJS, assets.URL("js/media.js"))
	return lay
}

// mediaList is GET /admin/media: the grid, searched by name, title and
// alt text, a page at a time.
func (h *handler) mediaList(c *fiber.Ctx) error {
	return h.renderMediaList(c, fiber.StatusOK, "")
}

func (h *handler) renderMediaList(c *fiber.Ctx, status int, errMsg string) error {
	u := ui.UserOf(c)
	if !models.MayUploadMedia(u) {
		return fiber.ErrForbidden
	}
	page, _ := strconv.Atoi(c.Query("page"))
	page = max(page, 1)
	search := c.Query("s")
	items, total, err := h.d.DB.ListMedia(c.UserContext(), u, models.MediaQuery{Search: search, Page: page, PerPage: mediaPerPage})
	if err != nil {
		return err
	}
	lay := h.mediaLayout(c, "media.admin.title")
	v := mediaListView{Layout: lay, CSRF: lay.CSRF, Items: items, Search: search, Page: page, Total: total,
		TotalPages: int(math.Ceil(float64(total) / mediaPerPage)), Error: errMsg, Uploaded: c.Query("uploaded") != "",
		MaxBytes: h.d.DB.MediaStorage().MaxBytes}
	if v.MaxBytes <= 0 {
		v.MaxBytes = models.DefaultMediaMaxBytes
	}
	return render(c, status, mediaListPage(v))
}

// mediaUpload is POST /admin/media: a plain form post (or the same post
// sent by media.js with a progress bar), then back to the grid.
func (h *handler) mediaUpload(c *fiber.Ctx) error {
	lang := h.pickLang(c)
	_, err := h.createUploaded(c)
	if errors.Is(err, errNoFile) {
		return h.renderMediaList(c, fiber.StatusUnprocessableEntity, h.d.I18n.T(lang, "media.error.no_file_admin", nil))
	}
	if msg, status, ok := h.mediaError(lang, err); ok {
		return h.renderMediaList(c, status, msg)
	} else if err != nil {
		return err
	}
	return c.Redirect(mediaPath+"?uploaded=1", fiber.StatusSeeOther)
}

// errNoFile: the upload form came without a file.
var errNoFile = errors.New("admin: no file in the upload form")

// createUploaded stores the image of the form's file field (with its alt
// text and title) as the signed-in user: the media page's upload and the
// picker's. errNoFile when the form holds no file.
func (h *handler) createUploaded(c *fiber.Ctx) (*models.Media, error) {
	fh, err := c.FormFile("file")
	if err != nil {
		return nil, errNoFile
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, models.DefaultMediaMaxBytes*32))
	if err != nil {
		return nil, err
	}
	return h.d.DB.CreateMedia(c.UserContext(), ui.UserOf(c), models.MediaUpload{FileName: fh.Filename,
		AltText: c.FormValue("alt_text"), Title: c.FormValue("title"), Data: data})
}

// mediaError localizes a refusal or an invalid field with the status the
// page is answered with: 403 for a refusal, 409 for an image still in use,
// 422 for an invalid field; ok is false for other errors (passed on).
func (h *handler) mediaError(lang string, err error) (msg string, status int, ok bool) {
	var fe *models.ForbiddenError
	var ve *models.ValidationError
	switch {
	case errors.As(err, &fe):
		return h.d.I18n.T(lang, fe.MessageID(), fe.Data), fiber.StatusForbidden, true
	case errors.As(err, &ve) && len(ve.Fields) > 0:
		status = fiber.StatusUnprocessableEntity
		if ve.Fields[0].Reason == "media.error.in_use" {
			status = fiber.StatusConflict
		}
		return h.d.I18n.T(lang, ve.Fields[0].Reason, ve.Fields[0].Data), status, true
	}
	return "", 0, false
}

func (h *handler) mediaByID(c *fiber.Ctx) (*models.Media, error) {
	if !models.MayUploadMedia(ui.UserOf(c)) {
		return nil, fiber.ErrForbidden
	}
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, fiber.ErrNotFound
	}
	m, err := h.d.DB.Media(c.UserContext(), id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, fiber.ErrNotFound
	}
	return m, err
}

// mediaEdit is GET /admin/media/{id}: the image, its texts, where it is
// used, and the delete choices.
func (h *handler) mediaEdit(c *fiber.Ctx) error {
	m, err := h.mediaByID(c)
	if err != nil {
		return err
	}
	return h.renderMediaEdit(c, fiber.StatusOK, m, "", c.Query("saved") != "")
}

func (h *handler) renderMediaEdit(c *fiber.Ctx, status int, m *models.Media, errMsg string, saved bool) error {
	uses, err := h.d.DB.MediaUses(c.UserContext(), ui.UserOf(c), m.ID)
	if err != nil {
		return err
	}
	lay := h.mediaLayout(c, "media.admin.edit_title")
	v := mediaEditView{Layout: lay, CSRF: lay.CSRF, Media: m, Uses: uses, Error: errMsg, Saved: saved,
		Lang: h.mediaTextLang(c), Title: m.Title, Alt: m.AltText, MayChange: models.MayChangeMedia(ui.UserOf(c), m)}
	withText, err := h.d.DB.MediaIn(c.UserContext(), m.ID, "")
	if err != nil {
		return err
	}
	base := "/admin/media/" + strconv.FormatInt(m.ID, 10)
	for _, l := range translationLangs() {
		v.Langs = append(v.Langs, translationLink{Code: l, Name: ui.LanguageNames[l], Href: base + "?lang=" + l,
			Done: l == h.d.SiteLang() || contains(withText.Translations, l)})
	}
	if v.Lang != h.d.SiteLang() {
		title, alt, err := h.d.DB.MediaTranslation(c.UserContext(), m.ID, v.Lang)
		if err != nil {
			return err
		}
		v.Translating, v.Title, v.Alt, v.TitleHint, v.AltHint = true, deref(title), deref(alt), m.Title, m.AltText
	}
	return render(c, status, mediaEditPage(v))
}

// mediaTextLang is the language whose texts the media page edits: ?lang=
// (or the form's lang), else the site's.
func (h *handler) mediaTextLang(c *fiber.Ctx) string {
	for _, l := range []string{c.Query("lang"), c.FormValue("lang")} {
		if contains(translationLangs(), l) {
			return l
		}
	}
	return h.d.SiteLang()
}

// mediaSave is POST /admin/media/{id}: the title and alt text.
func (h *handler) mediaSave(c *fiber.Ctx) error {
	m, err := h.mediaByID(c)
	if err != nil {
		return err
	}
	title, alt, lang := c.FormValue("title"), c.FormValue("alt_text"), h.mediaTextLang(c)
	in := models.MediaText{Title: &title, AltText: &alt}
	if lang != h.d.SiteLang() {
		in.Lang = lang // a translation
	}
	_, err = h.d.DB.UpdateMedia(c.UserContext(), ui.UserOf(c), m.ID, in)
	if msg, status, ok := h.mediaError(h.pickLang(c), err); ok {
		return h.renderMediaEdit(c, status, m, msg, false)
	} else if err != nil {
		return err
	}
	return c.Redirect(fmt.Sprintf("%s/%d?saved=1&lang=%s", mediaPath, m.ID, lang), fiber.StatusSeeOther)
}

// mediaDelete is POST /admin/media/{id}/delete: refused while the image is
// in use unless the user chose to remove it from those records (unlink).
func (h *handler) mediaDelete(c *fiber.Ctx) error {
	m, err := h.mediaByID(c)
	if err != nil {
		return err
	}
	err = h.d.DB.DeleteMedia(c.UserContext(), ui.UserOf(c), m.ID, c.FormValue("unlink") == "1")
	if msg, status, ok := h.mediaError(h.pickLang(c), err); ok {
		return h.renderMediaEdit(c, status, m, msg, false)
	} else if err != nil {
		return err
	}
	return c.Redirect(mediaPath, fiber.StatusSeeOther)
}

// useHref is the admin page of a record that shows an image: its edit
// form, or for a record in the trash (which is restored before it is
// edited) the trash of its list.
func useHref(u models.MediaUse) string {
	kind := "events"
	switch u.Kind {
	case models.KindVenue:
		kind = "venues"
	case models.KindOrganizer:
		kind = "organizers"
	}
	if u.Status == models.StatusTrash {
		return "/admin/" + kind + "?status=trash"
	}
	return fmt.Sprintf("/admin/%s/%d/edit", kind, u.ID)
}

// urlQuery escapes a query value.
func urlQuery(s string) string { return url.QueryEscape(s) }
