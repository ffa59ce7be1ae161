package models

import (
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/text/unicode/norm"
)

// The rules of single field values, shared by the API's argument pipeline
// (which checks them before anything reads the database) and by the
// operations themselves (so a form cannot store what the API refuses).

// Text limits (SPEC §11).
const (
	MaxNameLen     = 255      // names, titles, slugs, URLs, short text (characters)
	MaxLongTextLen = 64 << 10 // descriptions and excerpts (characters)
)

var (
	utcOffsetRe = regexp.MustCompile(`^UTC([+-](\d|1[0-4])([.:](5|50|75|30|45))?)?$`)
	zoneNameRe  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$`)
)

// CheckText checks a text value: valid UTF-8, no NUL, at most maxLen
// characters (MaxNameLen when 0). It returns nil or the field error
// (without the field name).
func CheckText(s string, maxLen int) *FieldError {
	if maxLen <= 0 {
		maxLen = MaxNameLen
	}
	if !utf8.ValidString(s) {
		return &FieldError{Code: CodeInvalidParam, Reason: "reason.invalid_utf8"}
	}
	if strings.IndexByte(s, 0) >= 0 {
		return &FieldError{Code: CodeInvalidParam, Reason: "reason.nul_byte"}
	}
	if len(s) > maxLen && utf8.RuneCountInString(s) > maxLen {
		return &FieldError{Code: "rest_too_long", Reason: "reason.too_long", Data: map[string]any{"Max": maxLen}}
	}
	return nil
}

// ValidURL reports whether s is an absolute http(s) URL with a host and no
// white space.
func ValidURL(s string) bool {
	if strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	sc := strings.ToLower(u.Scheme)
	return sc == "http" || sc == "https"
}

// ValidEmail reports whether s is a bare e-mail address (no display name).
func ValidEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Name == "" && addr.Address == s
}

// ValidTimezone accepts an IANA zone name, "UTC", or a WordPress offset
// such as "UTC+2", "UTC-5:30" or "UTC+5.5".
func ValidTimezone(s string) bool {
	if utcOffsetRe.MatchString(s) {
		return true
	}
	// Guard LoadLocation: only names shaped like zone names reach the
	// file system, never paths or "Local".
	if s == "Local" || strings.Contains(s, "..") || !zoneNameRe.MatchString(s) {
		return false
	}
	_, err := time.LoadLocation(s)
	return err == nil
}

// fieldChecks collects the field errors of one input, in order.
type fieldChecks struct{ fields []FieldError }

// text checks an optional text field.
func (c *fieldChecks) text(field string, v *string, maxLen int) {
	if v == nil {
		return
	}
	if fe := CheckText(*v, maxLen); fe != nil {
		fe.Field = field
		c.fields = append(c.fields, *fe)
	}
}

// required checks a field that must be sent and must not be blank.
func (c *fieldChecks) required(field string, v *string) {
	switch {
	case v == nil:
		c.add(field, "reason.required", nil)
	case strings.TrimSpace(*v) == "":
		c.add(field, "reason.empty_string", nil)
	}
}

// url checks an optional URL field ("" clears it).
func (c *fieldChecks) url(field string, v *string, reason string) {
	if v != nil && *v != "" && !ValidURL(*v) {
		c.add(field, reason, nil)
	}
}

// status checks an optional post status.
func (c *fieldChecks) status(field string, v *string) {
	if v != nil && !ValidStatus(*v) {
		c.fields = append(c.fields, FieldError{Field: field, Code: "rest_not_in_enum", Reason: "reason.not_in_enum",
			Data: map[string]any{"Values": strings.Join(Statuses, ", ")}})
	}
}

func (c *fieldChecks) add(field, reason string, data map[string]any) {
	c.fields = append(c.fields, FieldError{Field: field, Code: CodeInvalidParam, Reason: reason, Data: data})
}

// err returns the collected errors as a *ValidationError, or nil.
func (c *fieldChecks) err() error {
	if len(c.fields) == 0 {
		return nil
	}
	return &ValidationError{Fields: c.fields}
}

// checkName checks a record's name or title: required on create, never
// blank, at most MaxNameLen characters.
func checkName(c *fieldChecks, field string, v *string, create bool) {
	if create {
		c.required(field, v)
	} else if v != nil && strings.TrimSpace(*v) == "" {
		c.add(field, "reason.empty_string", nil)
	}
	c.text(field, v, MaxNameLen)
}

// setStr sets *dst to *v when v was sent.
func setStr(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// setBool sets *dst to *v when v was sent.
func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// trimmed is v without surrounding white space (nil stays nil).
func trimmed(v *string) *string {
	if v == nil {
		return nil
	}
	t := strings.TrimSpace(*v)
	return &t
}

// richTextPolicy is what description HTML may keep (SPEC §10): the
// elements and attributes of user-written content (paragraphs, emphasis,
// links, lists, tables, images, headings, quotes, code), never scripts,
// styles, event handlers or javascript: URLs. Links are kept as written
// (no rel is added).
var richTextPolicy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	return p
}()

// sanitizeHTML returns the sanitized copy of a rich-text input (nil stays
// nil), in NFC. Every write of a description or excerpt goes through it,
// the API's and the admin's alike, so stored text is safe wherever it is
// shown. The input is composed before it is sanitized, and what the
// sanitizer gives (which may hold decomposed text again: an entity such
// as &#x301; is written out as the character) is composed without
// touching its markup (nfcHTML).
func sanitizeHTML(s *string) *string {
	if s == nil {
		return nil
	}
	out := nfcHTML(richTextPolicy.Sanitize(norm.NFC.String(*s)))
	return &out
}
