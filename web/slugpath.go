package web

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/text/unicode/norm"
)

// slugParam is the slug a public or admin route's :slug segment names,
// however the client sent it: percent-encoded (the form of every URL
// Kalends gives out, in either hex case) or raw UTF-8, composed or
// decomposed. Fiber leaves path parameters undecoded (UnescapePath stays
// off, as the API decodes its own paths), so the segment is decoded here,
// checked to be UTF-8 and put in Unicode NFC, the form slugs are stored in.
// ok is false for a segment that cannot name a slug (a bad escape or
// bytes that are not UTF-8, or a control character, which no slug holds):
// the caller answers 404.
func slugParam(c *fiber.Ctx) (slug string, ok bool) {
	return decodeSlug(c.Params("slug"))
}

// decodeSlug is slugParam for a raw path segment.
func decodeSlug(seg string) (string, bool) {
	s, err := url.PathUnescape(seg)
	if err != nil || s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return "", false
	}
	return norm.NFC.String(s), true
}
