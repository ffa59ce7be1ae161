package api

import (
	"io"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// mediaRoutes declares /media and /media/{id}: our extension to TEC's
// namespace, the media library (images uploaded as multipart/form-data).
func mediaRoutes() []Route {
	id := argIDPath("media.arg.id")
	id.Required = true
	list := []Arg{
		argPage(),
		argPerPage(),
		{Name: "search", Type: "string", Desc: "media.arg.search", In: "query", Kind: KString, MaxLen: models.MaxSearchLen},
	}
	texts := []Arg{
		{Name: "alt_text", Type: "string", Desc: "media.arg.alt_text", In: "body", Kind: KString, MaxLen: 1000},
		{Name: "title", Type: "string", Desc: "media.arg.title", In: "body", Kind: KString, MaxLen: 255},
	}
	upload := append([]Arg{{Name: "file", Type: "string", Format: "binary", Desc: "media.arg.file", In: "body", Kind: KRaw}}, texts...)
	return []Route{
		{
			Pattern: "/media",
			DocPath: "/media",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: list, Action: models.ActCreate, Kind: models.KindMedia, Handler: mediaList},
				{Methods: []string{"POST"}, Args: upload, Action: models.ActCreate, Kind: models.KindMedia, Handler: mediaUpload, Multipart: true},
			},
		},
		{
			Pattern: `/media/(?P<id>\d+)`,
			DocPath: "/media/{id}",
			Endpoints: []Endpoint{
				{Methods: []string{"GET"}, Args: []Arg{id}, Handler: mediaGet},
				{Methods: []string{"POST", "PUT", "PATCH"}, Args: append([]Arg{id}, texts...), Action: models.ActEdit, Kind: models.KindMedia, Handler: mediaUpdate},
				{Methods: []string{"DELETE"}, Args: []Arg{id, argMediaForce(), {Name: "unlink", Type: "boolean", Default: false, HasDefault: true,
					Desc: "media.arg.unlink", In: "query", Kind: KBool}}, Action: models.ActEdit, Kind: models.KindMedia, Handler: mediaDelete},
			},
		},
	}
}

func mediaPathID(r *Request) int64 {
	id, _ := strconv.ParseInt(r.Path["id"], 10, 64)
	return id
}

// mediaUpload answers POST /media: 201, the image object and a Location.
func mediaUpload(c *fiber.Ctx, r *Request) error {
	fh, err := c.FormFile("file")
	if err != nil {
		return ErrInvalidParam("file", Reason{Code: models.CodeInvalidParam, Reason: "media.error.no_file"})
	}
	max := r.Deps.MediaMaxBytes
	if max <= 0 {
		max = models.DefaultMediaMaxBytes
	}
	if fh.Size > max {
		return ErrInvalidParam("file", Reason{Code: models.CodeInvalidParam, Reason: "media.error.too_large", Data: map[string]any{"Max": max}})
	}
	f, err := fh.Open()
	if err != nil {
		return ErrInternal(err)
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return ErrInternal(err)
	}
	m, err := r.Deps.DB.CreateMedia(r.Ctx, r.User, models.MediaUpload{FileName: fh.Filename,
		Title: r.String("title"), AltText: r.String("alt_text"), Data: data})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, r.Deps.APIURL(r, "/media/"+strconv.FormatInt(m.ID, 10)))
	return sendJSON(c, http.StatusCreated, presentMedia(r, m))
}

// mediaGet answers GET /media/{id} (anyone: the image of a published
// record is public).
func mediaGet(c *fiber.Ctx, r *Request) error {
	m, err := r.Deps.DB.MediaIn(r.Ctx, mediaPathID(r), r.Lang)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentMedia(r, m))
}

// mediaUpdate answers POST/PUT/PATCH /media/{id}: the alt text and title,
// in the request's language (another than the site's is a translation).
func mediaUpdate(c *fiber.Ctx, r *Request) error {
	var in models.MediaText
	if r.Lang != i18n.OrSource(r.Deps.site().Language()) {
		in.Lang = r.Lang // a translation
	}
	if r.Has("alt_text") {
		s := r.String("alt_text")
		in.AltText = &s
	}
	if r.Has("title") {
		s := r.String("title")
		in.Title = &s
	}
	m, err := r.Deps.DB.UpdateMedia(r.Ctx, r.User, mediaPathID(r), in)
	if err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, presentMedia(r, m))
}

// mediaDelete answers DELETE /media/{id}: refused while an event, venue or
// organizer shows the image, unless unlink=true removes it from them.
func mediaDelete(c *fiber.Ctx, r *Request) error {
	m, err := r.Deps.DB.MediaIn(r.Ctx, mediaPathID(r), r.Lang)
	if err != nil {
		return err
	}
	unlink, _ := r.Bool("unlink")
	if err := r.Deps.DB.DeleteMedia(r.Ctx, r.User, m.ID, unlink); err != nil {
		return err
	}
	return sendJSON(c, http.StatusOK, Obj{{"deleted", true}, {"previous", presentMedia(r, m)}})
}

// mediaList answers GET /media: a page of the library, newest first.
func mediaList(c *fiber.Ctx, r *Request) error {
	if err := setChangesCursor(c, r); err != nil {
		return err
	}
	page, per := r.Page(), r.PerPage()
	list, total, err := r.Deps.DB.ListMedia(r.Ctx, r.User, models.MediaQuery{Search: r.String("search"), Page: page, PerPage: per, Lang: r.Lang})
	if err != nil {
		return err
	}
	items := make([]Obj, len(list))
	for i := range list {
		items[i] = presentMedia(r, &list[i])
	}
	pages := 0
	if total > 0 {
		pages = (total + per - 1) / per
	}
	c.Set("X-WP-Total", strconv.Itoa(total))
	c.Set("X-WP-TotalPages", strconv.Itoa(pages))
	return sendJSON(c, http.StatusOK, Obj{{"rest_url", r.Deps.APIURL(r, "/media/")}, {"total", total}, {"total_pages", pages}, {"media", items}})
}

// presentMedia is TEC's image object with our id, alt text and title:
// {url, id, extension, width, height, filesize, sizes: {name: {width,
// height, mime-type, filesize, url}}}.
func presentMedia(r *Request, m *models.Media) Obj {
	sizes := Obj{}
	for _, f := range m.Files {
		if f.Size == "full" {
			continue
		}
		sizes = append(sizes, KV{f.Size, Obj{{"width", f.Width}, {"height", f.Height}, {"mime-type", m.Mime},
			{"filesize", f.Filesize}, {"url", r.Deps.site().BaseURL + m.Path(f.Size)}}})
	}
	return Obj{
		{"url", r.Deps.site().BaseURL + m.Path("full")},
		{"id", m.ID},
		{"extension", m.Ext},
		{"width", m.Width},
		{"height", m.Height},
		{"filesize", m.Filesize},
		{"sizes", sizes},
		{"alt_text", m.AltText},
		{"title", m.Title},
		{"mime_type", m.Mime},
		{"translations", nonNil(m.Translations)},
	}
}

// recordImage is the image object of an event, venue or organizer: false
// without an image; the library image with its sizes when the stored URL
// names one; else what the URL tells (url and extension).
func recordImage(r *Request, u string) any {
	if u == "" {
		return false
	}
	if id := models.MediaIDOf(u); id != 0 {
		if r.media == nil {
			r.media = map[int64]*models.Media{}
		}
		m, ok := r.media[id]
		if !ok {
			m, _ = r.Deps.DB.Media(r.Ctx, id) // a vanished image shows as its URL
			r.media[id] = m
		}
		if m != nil {
			o := presentMedia(r, m)
			return o[:7]
		}
		u = r.Deps.site().BaseURL + u
	}
	return linkedImageURL(u)
}

// argMediaForce is force on DELETE /media/{id}: images have no trash and are
// always deleted for good; it is accepted as on every DELETE of the API.
func argMediaForce() Arg {
	a := argForce()
	a.Desc = "media.arg.force"
	return a
}
