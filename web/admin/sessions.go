package admin

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/web/ui"
)

// The profile's sessions (issue 28): where one is signed in, and ending
// any of those sessions, or all but this one. Only one's own sessions are
// listed or ended; the form names a session by its stored id (the hash of
// its token, which opens nothing), in the body so that it stays out of
// access logs.

const (
	endSessionPath        = profilePath + "/sessions/end"
	endOtherSessionsPath  = profilePath + "/sessions/end-others"
	storedSessionIDLength = 64 // hex SHA-256, see models.Session
	// maxUnbrokenAddress is the longest address shown on one line (an
	// IPv4 address is at most 15 characters).
	maxUnbrokenAddress = 20
)

// sessionRow is one session in the profile's table.
type sessionRow struct {
	ID               string // the stored id, posted to end it
	Browser, Address string // readable summary, client address
	SignedIn         when
	LastSeen         when // the current session: Date says "now"
	Current          bool // the session of this request
	EndLabel         string
}

// whenOf writes t in the site's zone and the page's language: the date
// without its weekday (the table is narrow; Full has it, for a tooltip).
func (h *handler) whenOf(lang string, t time.Time) when {
	local := t.In(h.d.Site.Zone())
	return when{Date: ui.FormatShortDate(lang, local), Time: ui.FormatTime(lang, local), Full: ui.FormatDateTime(lang, local),
		ISO: t.UTC().Format(time.RFC3339)}
}

// addressText writes an address; a long one (an IPv6 address in full)
// gets a line-break opportunity (<wbr>) after each colon, and none
// elsewhere.
func addressText(addr string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		parts := []string{addr}
		if len(addr) > maxUnbrokenAddress {
			parts = strings.SplitAfter(addr, ":")
		}
		for i, part := range parts {
			if i > 0 {
				if _, err := io.WriteString(w, "<wbr>"); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, templ.EscapeString(part)); err != nil {
				return err
			}
		}
		return nil
	})
}

// sessions lists the live sessions of the signed-in user, the current one
// first, with times in the site's zone and the user's language.
func (h *handler) sessions(c *fiber.Ctx, lay layoutView) (sessionsView, error) {
	u, cur := ui.UserOf(c), ui.SessionOf(c)
	list, err := h.d.DB.ListSessions(c.UserContext(), u.ID)
	if err != nil {
		return sessionsView{}, err
	}
	v := sessionsView{Intro: lay.TD("admin.profile.sessions.intro", map[string]any{
		"Idle": durationText(lay, ui.SessionTTL), "Max": durationText(lay, h.d.Site.SessionLifetime())})}
	for _, s := range list {
		r := sessionRow{ID: s.ID, Browser: browserSummary(lay, s.UserAgent), Address: s.IP,
			SignedIn: h.whenOf(lay.Lang, s.CreatedAt), LastSeen: h.whenOf(lay.Lang, s.SeenAt()),
			Current: cur != nil && s.ID == cur.ID}
		if r.Address == "" {
			r.Address = lay.T("admin.profile.sessions.unknown_address")
		}
		action := lay.T("admin.profile.sessions.end")
		if r.Current {
			// Used right now: its recorded time lags by up to
			// models.SessionSeenResolution.
			r.LastSeen = when{Date: lay.T("admin.profile.sessions.now")}
			action = lay.T("admin.layout.sign_out")
		}
		r.EndLabel = lay.TD("admin.profile.sessions.end_label", map[string]any{"Action": action, "Browser": r.Browser, "Address": r.Address})
		if r.Current {
			v.Rows = append([]sessionRow{r}, v.Rows...)
		} else {
			v.Rows = append(v.Rows, r)
			v.Others++
		}
	}
	return v, nil
}

// durationText writes d in whole days, hours or minutes ("30 days",
// "12時間"), the largest unit that divides it.
func durationText(l layoutView, d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return l.TD("admin.duration.days", map[string]any{"Count": int(d / (24 * time.Hour))})
	case d%time.Hour == 0:
		return l.TD("admin.duration.hours", map[string]any{"Count": int(d / time.Hour)})
	default:
		return l.TD("admin.duration.minutes", map[string]any{"Count": max(1, int(d/time.Minute))})
	}
}

// endSession ends one of one's sessions (the CSRF check ran before).
// Ending the current one signs this browser out; ending one that is
// already over (another tab ended it) is no error.
func (h *handler) endSession(c *fiber.Ctx) error {
	id := c.FormValue("session")
	if !isStoredSessionID(id) {
		return fiber.ErrBadRequest
	}
	u := ui.UserOf(c)
	if err := h.d.DB.EndUserSession(c.UserContext(), u.ID, id); err != nil {
		return err
	}
	if cur := ui.SessionOf(c); cur != nil && cur.ID == id {
		return h.signedOut(c)
	}
	h.setFlash(c, "session_ended")
	return c.Redirect(profilePath+"#sessions", fiber.StatusSeeOther)
}

// endOtherSessions ends every session of the user but this one.
func (h *handler) endOtherSessions(c *fiber.Ctx) error {
	if _, err := h.d.DB.EndOtherSessions(c.UserContext(), ui.UserOf(c).ID, ui.SessionOf(c).ID); err != nil {
		return err
	}
	h.setFlash(c, "other_sessions_ended")
	return c.Redirect(profilePath+"#sessions", fiber.StatusSeeOther)
}

// isStoredSessionID reports whether id looks like a stored session id:
// 64 lower-case hex digits.
func isStoredSessionID(id string) bool {
	if len(id) != storedSessionIDLength {
		return false
	}
	for _, r := range id {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
