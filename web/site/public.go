package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/assets"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/jsonld"
	"github.com/kalends/kalends/internal/ordered"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The public pages: the url every API record carries leads here
// (/event/<slug>/, /venue/<slug>/, /organizer/<slug>/,
// /events/category/<slug>/, /tag/<slug>/, and the list /events/), at the
// root in the site's default language and under /<lang>/ in each language.
// They read through the same models operations as the API, as the caller
// (anonymous, or the admin session's user): what the API hides is 404 here.

// publicPerPage is the page size of the public lists.
const publicPerPage = 20

// langHandler is a public handler told the language of its request.
type langHandler func(c *fiber.Ctx, lang string) error

// perLanguage registers each route of routes at the root (the site's
// default language, or the one a root query argument names, when
// fromQuery reads it) and under every /<lang> prefix.
func (h *handler) perLanguage(fromQuery func(c *fiber.Ctx, lang string) (string, error), routes func(pre string, with func(langHandler) fiber.Handler)) {
	for _, code := range append([]string{""}, i18n.Codes...) {
		pre := ""
		if code != "" {
			pre = "/" + code
		}
		routes(pre, func(next langHandler) fiber.Handler {
			return h.cached(func(c *fiber.Ctx) error {
				lang := code
				if lang == "" {
					lang = h.d.SiteLang()
					if fromQuery != nil {
						var err error
						if lang, err = fromQuery(c, lang); err != nil {
							return err
						}
					}
				}
				return next(c, lang)
			})
		})
	}
}

// publicCacheTTL bounds how long a cached public page or feed lives: they
// list what is upcoming from now, so a page may show an event that ended
// at most this long ago. A write on any instance empties the cache sooner.
const publicCacheTTL = time.Minute

// cached serves anonymous GETs of next from the shared response cache
// (internal/respcache; signed-in readers are never cached, as they may see
// private records) and answers a hit with 304 when the request's
// If-None-Match or If-Modified-Since says the client has it.
func (h *handler) cached(next fiber.Handler) fiber.Handler {
	next = h.d.Gate.Wrap(next) // a hit never waits for a turn
	if h.d.Cache == nil {
		return next
	}
	inner := h.d.Cache.Handler(next, publicCacheTTL)
	return func(c *fiber.Ctx) error {
		if err := inner(c); err != nil {
			return err
		}
		res := c.Response()
		if res.StatusCode() != fiber.StatusOK || string(res.Header.Peek("X-Kalends-Cache")) != "hit" {
			return nil
		}
		fresh := false
		if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" {
			fresh = etagListHas(inm, string(res.Header.Peek(fiber.HeaderETag)))
		} else if ims, lm := c.Get(fiber.HeaderIfModifiedSince), string(res.Header.Peek(fiber.HeaderLastModified)); ims != "" && lm != "" {
			since, err1 := http.ParseTime(ims)
			last, err2 := http.ParseTime(lm)
			fresh = err1 == nil && err2 == nil && !last.After(since)
		}
		if fresh {
			c.Status(fiber.StatusNotModified)
			res.ResetBody()
		}
		return nil
	}
}

// noindex is the robots meta of a page search engines should not keep.
const noindex = "noindex"

// publicFilters are the query arguments that filter a public list (the
// API's names); page, view and month do not.
var publicFilters = []string{"search", "categories", "tags", "venue", "organizer", "featured", "vq", "oq"}

// filtered reports whether the request names a filter, even an empty one:
// such a page is one of countless combinations, none worth indexing.
func filtered(c *fiber.Ctx) bool {
	args := c.Request().URI().QueryArgs()
	for _, name := range publicFilters {
		if args.Has(name) {
			return true
		}
	}
	return false
}

// frame builds the frame of a public page at path (no language prefix).
func (h *handler) frame(lang, path, title, description string) publicView {
	t := func(id string) string { return h.d.I18n.T(lang, id, nil) }
	v := publicView{Lang: lang, HTMLLang: i18n.Tag(lang).String(), Title: title, Description: description, T: t,
		CSSURL: assets.URL("css/public.css"), Canonical: h.d.PageURL(lang, path),
		Home: h.d.PageURL(lang, "/events/"), Path: path, XDefault: h.d.PageURL(h.d.SiteLang(), path)}
	h.withIdentity(&v, lang, path)
	for _, code := range i18n.Codes {
		v.Alternates = append(v.Alternates, ui.LangLink{Code: code, Tag: i18n.Tag(code).String(), Name: ui.LanguageNames[code],
			Href: h.d.PageURL(code, path), Current: code == lang})
	}
	v.OG = []metaPair{{"og:type", "website"}, {"og:title", title}, {"og:url", v.Canonical},
		{"og:site_name", v.SiteName}, {"og:locale", strings.ReplaceAll(i18n.Tag(lang).String(), "-", "_")}}
	if description != "" {
		v.OG = append(v.OG, metaPair{"og:description", description})
	}
	return v
}

// withJSONLD sets the page's JSON-LD.
func (v *publicView) withJSONLD(o ordered.Obj) error {
	s, err := jsonld.Script(o)
	v.JSONLD = s
	return err
}

// sendPublic renders a public page with the headers every one carries: the
// API discovery link, and a validator (ETag) answered 304 when it matches.
// Pages read by a signed-in user (who may see private records) are not
// stored by shared caches.
func (h *handler) sendPublic(c *fiber.Ctx, status int, body []byte) error {
	ui.PageHeaders(c)
	c.Set(fiber.HeaderContentSecurityPolicy, publicCSP)
	c.Set(fiber.HeaderLink, "<"+h.d.Site.BaseURL+h.d.APIPath+`>; rel="https://api.w.org/"`)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	if ui.UserOf(c) != nil {
		c.Set(fiber.HeaderCacheControl, "private, no-cache")
	} else {
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	}
	c.Set(fiber.HeaderVary, "Cookie")
	if status == fiber.StatusOK && notModified(c, body) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	return c.Status(status).Send(body)
}

// publicCSP is the admin's policy but for images: a public page shows an
// event's external image (https: only; the admin keeps 'self' and data:).
var publicCSP = strings.Replace(ui.ContentSecurityPolicy, "img-src 'self' data:", "img-src 'self' data: https:", 1)

// notModified sets the ETag of body (a hash of it) and says whether the
// request's If-None-Match already names it.
func notModified(c *fiber.Ctx, body []byte) bool {
	sum := sha256.Sum256(body)
	tag := `"` + hex.EncodeToString(sum[:16]) + `"`
	c.Set(fiber.HeaderETag, tag)
	inm := c.Get(fiber.HeaderIfNoneMatch)
	return inm != "" && etagListHas(inm, tag)
}

// etagListHas says whether an If-None-Match list names tag (weak
// comparison, as RFC 9110 wants for If-None-Match).
func etagListHas(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// notFound is the public 404 page in lang.
func (h *handler) notFound(c *fiber.Ctx, lang string) error {
	v := h.frame(lang, "/events/", h.d.I18n.T(lang, "public.not_found.title", nil), "")
	v.Canonical = ""
	return h.renderPublic(c, fiber.StatusNotFound, publicErrorPage(v, v.T("public.not_found.lead")))
}

// badRequest is the 400 page in lang saying why the request cannot be
// answered (message, already in lang).
func (h *handler) badRequest(c *fiber.Ctx, lang, message string) error {
	v := h.frame(lang, "/events/", h.d.I18n.T(lang, "public.bad_request.title", nil), "")
	v.Canonical = ""
	v.Robots = noindex
	return h.renderPublic(c, fiber.StatusBadRequest, publicErrorPage(v, message))
}

// hidden reports whether err means the record is not there for this
// caller: unknown, not readable, or refused; such a page is a 404.
func hidden(err error) bool {
	var fe *models.ForbiddenError
	var ve *models.ValidationError
	return errors.Is(err, models.ErrNotFound) || errors.As(err, &fe) || errors.As(err, &ve) ||
		errors.Is(err, models.ErrForbidden) || errors.Is(err, models.ErrBadTermName)
}

// onPublicPage reports whether a record in status has a public page for
// its reader: published, or private for a reader allowed to read it (the
// models operation that returned it has checked that).
func onPublicPage(status string) bool {
	return status == models.StatusPublish || status == models.StatusPrivate
}

// actor is the caller of a public page: the admin session's user or nil.
func actor(c *fiber.Ctx) *models.User { return ui.UserOf(c) }

// upcoming is the window of "upcoming" lists: events not yet over.
func (h *handler) upcoming() *time.Time {
	now := h.d.Site.Now()
	return &now
}

// queryInt reads a positive integer argument; ok is false when it is there
// but not one.
func queryInt(c *fiber.Ctx, name string, def int) (int, bool) {
	s := c.Query(name)
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000 {
		return def, false
	}
	return n, true
}

func (h *handler) renderPublic(c *fiber.Ctx, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.UserContext(), &buf); err != nil {
		return err
	}
	return h.sendPublic(c, status, buf.Bytes())
}

// listError answers a list that cannot be shown, in one place for every
// public list: a filter that cannot be read or names nothing is a 400
// page that says why, a page past the end (or not a number) a 404 page,
// anything else an error.
func (h *handler) listError(c *fiber.Ctx, lang string, err error) error {
	if errors.Is(err, errBadPage) {
		return h.notFound(c, lang)
	}
	if msg, _, ok := ui.FilterMessage(h.d.I18n, lang, err); ok {
		return h.badRequest(c, lang, msg)
	}
	if hidden(err) {
		return h.notFound(c, lang)
	}
	return err
}

// errBadPage marks a page argument that is not a page number.
var errBadPage = fiber.NewError(fiber.StatusNotFound, "no such page")
