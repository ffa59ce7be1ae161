package i18n

import (
	"strings"

	"golang.org/x/text/language"
)

// matcher matches browser preferences against Codes. The order of
// supported tags decides ties; Source first makes it the fallback.
var matchCodes, matcher = newMatcher()

func newMatcher() ([]string, language.Matcher) {
	codes := []string{Source}
	for _, c := range Codes {
		if c != Source {
			codes = append(codes, c)
		}
	}
	supported := make([]language.Tag, len(codes))
	for i, c := range codes {
		supported[i] = Tag(c)
	}
	return codes, language.NewMatcher(supported)
}

// Match picks our language code for an Accept-Language header (or any list
// of BCP 47 tags). It uses the matcher's index, never the tag it returns:
// that tag carries extensions (zh-Hans-u-rg-cnzzzz) and is not one of ours.
//
// Traditional Chinese (zh-TW, zh-HK, zh-Hant) matches zh-hans only with low
// confidence; we still answer in Simplified Chinese, which its readers
// understand far better than the English fallback. Anything else unknown
// (fr, de, garbage) falls back to def.
func Match(acceptLanguage, def string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return def
	}
	_, idx, conf := matcher.Match(tags...)
	if conf == language.No {
		return def
	}
	return matchCodes[idx]
}

// Normalize turns a user-supplied code into one of Codes, or "" when it is
// not ours: "zh-Hans", "ZH-HANS" and "zh_hans" all give "zh-hans".
func Normalize(code string) string {
	c := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(code), "_", "-"))
	if Valid(c) {
		return c
	}
	return ""
}
