package admin

import "strings"

// A User-Agent is shown on the profile's list of sessions as the browser
// and the system it runs on ("Firefox", "Linux"): enough to recognise
// one's own devices, never the raw header. The lists below are what
// editors use in our four languages' markets; anything else falls back to
// the first product name of the header (curl, a script's library) or to
// "unknown". Order matters: most browsers also claim to be Safari and
// Chrome, so the specific names come first.

// uaBrowsers maps a token of the header to a browser's name, first match
// wins.
var uaBrowsers = []struct{ token, name string }{
	{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"}, {"Edge/", "Edge"},
	{"OPR/", "Opera"}, {"OPiOS/", "Opera"}, {"Opera", "Opera"},
	{"SamsungBrowser/", "Samsung Internet"},
	{"Whale/", "Whale"},
	{"YaBrowser/", "Yandex Browser"},
	{"Vivaldi/", "Vivaldi"},
	{"UCBrowser/", "UC Browser"},
	{"QQBrowser/", "QQ Browser"},
	{"MicroMessenger/", "WeChat"},
	{" Line/", "LINE"},
	{"FxiOS/", "Firefox"}, {"Firefox/", "Firefox"},
	{"CriOS/", "Chrome"},
	{"HeadlessChrome/", "Headless Chrome"},
	{"Chromium/", "Chromium"},
	{"Chrome/", "Chrome"},
	{"Safari/", "Safari"},
	{"Trident/", "Internet Explorer"}, {"MSIE ", "Internet Explorer"},
}

// uaSystems maps a token of the header to an operating system or device,
// first match wins (Android claims Linux; iPhones claim Mac OS X).
var uaSystems = []struct{ token, name string }{
	{"HarmonyOS", "HarmonyOS"},
	{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"iPod", "iPod"},
	{"Android", "Android"},
	{"Windows", "Windows"},
	{"CrOS", "ChromeOS"},
	{"Macintosh", "macOS"}, {"Mac OS X", "macOS"},
	{"Linux", "Linux"},
	{"FreeBSD", "FreeBSD"}, {"OpenBSD", "OpenBSD"},
}

// maxProduct is the longest product name taken from a header that names no
// known browser.
const maxProduct = 32

// userAgentParts returns the browser and the system named by a User-Agent
// header, "" for what it does not recognise.
func userAgentParts(ua string) (browser, system string) {
	for _, b := range uaBrowsers {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	for _, s := range uaSystems {
		if strings.Contains(ua, s.token) {
			system = s.name
			break
		}
	}
	if browser == "" && !strings.HasPrefix(ua, "Mozilla/") {
		browser = product(ua)
	}
	return browser, system
}

// product is the first product name of a header ("curl" of
// "curl/8.5.0"), or "" unless it is a plain name of letters, digits and
// - _ . of at most maxProduct characters.
func product(ua string) string {
	name, _, _ := strings.Cut(ua, "/")
	name, _, _ = strings.Cut(name, " ")
	if name == "" || len(name) > maxProduct {
		return ""
	}
	for _, r := range name {
		if !isNameRune(r) {
			return ""
		}
	}
	return name
}

// isNameRune reports whether r may be part of a product name: an ASCII
// letter or digit, or one of - _ .
func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
}

// browserSummary is the short, translated name of a User-Agent on the
// list of sessions: "Firefox on Linux", "Safari", "Unknown browser on
// Android".
func browserSummary(l layoutView, ua string) string {
	browser, system := userAgentParts(ua)
	if browser == "" {
		browser = l.T("admin.profile.sessions.unknown_browser")
	}
	if system == "" {
		return browser
	}
	return l.TD("admin.profile.sessions.browser_on", map[string]any{"Browser": browser, "System": system})
}
