// Package admin is the browser admin: every page under /admin/ (templ
// pages with htmx), its sign-in, sessions, CSRF check, flash messages and
// error page. routes.go lists its routes. It imports web/ui for what it
// shares with the public site, and never web/site.
package admin
