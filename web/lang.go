package web

import (
	"github.com/gofiber/fiber/v2"
	"golang.org/x/text/language"

	"github.com/kalends/kalends/i18n"
)

// matcher picks one of i18n.Codes from Accept-Language. Its result tag
// carries extensions (zh-Hans-u-rg-cnzzzz), so only the index is used.
var matcher = func() language.Matcher {
	tags := make([]language.Tag, len(i18n.Codes))
	for i, code := range i18n.Codes {
		tags[i] = i18n.Tag(code)
	}
	return language.NewMatcher(tags)
}()

// langCookie remembers the language picked with ?lang=.
const langCookie = "kalends_lang"

// pickLang returns the admin language of a request: ?lang=, then the
// cookie, then Accept-Language (only a confident match), then the site
// default.
func (h *handler) pickLang(c *fiber.Ctx) string {
	if l := c.Query("lang"); i18n.Valid(l) {
		return l
	}
	if l := c.Cookies(langCookie); i18n.Valid(l) {
		return l
	}
	if al := c.Get(fiber.HeaderAcceptLanguage); al != "" {
		prefs, _, err := language.ParseAcceptLanguage(al)
		if err == nil && len(prefs) > 0 {
			_, idx, conf := matcher.Match(prefs...)
			if conf >= language.High {
				return i18n.Codes[idx]
			}
		}
	}
	if i18n.Valid(h.d.DefaultLanguage) {
		return h.d.DefaultLanguage
	}
	return "en"
}
