// Package site is the public site: the pages of events, venues,
// organizers, categories and tags in every language, the month view, the
// iCalendar feeds, the sitemap and robots.txt, answered from the response
// cache for anonymous readers. routes.go lists its routes. It imports
// web/ui for what it shares with the admin, and never web/admin.
package site
