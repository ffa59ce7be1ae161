package ui

// LanguageNames are the languages as each names itself (ADMIN-UI.md), the
// same on every page whatever its language.
var LanguageNames = map[string]string{"zh-hans": "简体中文", "en": "English", "ja": "日本語", "ko": "한국어"}

// LangLink is one language of a page: a choice of the admin's switcher
// (a button of its form), or a public page's alternate (Href).
type LangLink struct {
	Code, Tag, Name, Href string
	Current               bool
}
