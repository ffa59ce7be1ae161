package admin

import (
	"net/url"
	"strings"
)

// The one check of a place to go that a request names: a form's back, the
// sign-in form's redirect_to, the page a language switch returns to and
// the retry link of a busy page. Each caller goes through safeRedirect, or
// through backTo when only its own pages may be named.

// maxRedirectLen bounds a target (a longer one is refused, not cut).
const maxRedirectLen = 2000

// safeRedirect reports whether target is a path of this site: it starts
// with one slash, and nothing in it could make a browser leave the site
// (a second slash or a backslash, which browsers read as a slash, a scheme,
// a host, control characters), raw or percent-decoded in its path.
func safeRedirect(target string) bool {
	if target == "" || target[0] != '/' || len(target) > maxRedirectLen {
		return false
	}
	if strings.HasPrefix(target, "//") || strings.ContainsAny(target, "\\") || hasControl(target) {
		return false
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return false
	}
	return !strings.HasPrefix(u.Path, "//") && !strings.ContainsAny(u.Path, "\\") && !hasControl(u.Path)
}

// hasControl reports whether s holds a control character.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

// backTo is target when it is a safe path (safeRedirect) of one of the
// pages under (a prefix path itself, or below it: its query, its sub-paths,
// never a "." or ".." step), else def. With no prefix given, def is one.
func backTo(target, def string, under ...string) string {
	if !safeRedirect(target) {
		return def
	}
	u, _ := url.Parse(target) // safeRedirect parsed it
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return def
		}
	}
	if len(under) == 0 {
		under = []string{def}
	}
	for _, p := range under {
		if u.Path == p || strings.HasPrefix(u.Path, strings.TrimSuffix(p, "/")+"/") {
			return target
		}
	}
	return def
}
