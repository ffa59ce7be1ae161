package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Issue 28, finding 9: sessions slid for ever. A session kept active keeps
// sliding (7 days from its last use) but ends DefaultSessionMaxAge after
// sign-in, for the admin (SessionByToken) and for the API's cookie + nonce
// (Actor) alike; its expiry never passes sign-in plus the lifetime. A
// lifetime shorter than the sliding window caps the first expiry, and a
// lifetime shortened in the configuration ends older sessions at once.
func TestSessionsEndAfterMaxAge(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		const week = 7 * 24 * time.Hour
		yui := addAccount(t, db, "yui", models.RoleEditor)
		client := models.SessionClient{UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
			IP: "2001:db8::7"}
		token, sess, err := db.StartSession(ctx, yui.ID, week, client)
		if err != nil {
			t.Fatal(err)
		}
		idle, _, err := db.CreateSession(ctx, yui.ID, week)
		if err != nil {
			t.Fatal(err)
		}
		signedIn := sess.CreatedAt
		end := signedIn.Add(models.DefaultSessionMaxAge)
		if !sess.ExpiresAt.Equal(signedIn.Add(week)) || !sess.LastSeenAt.Equal(signedIn) {
			t.Errorf("new session expires %v, last seen %v; want a week after sign-in, seen at sign-in", sess.ExpiresAt, sess.LastSeenAt)
		}
		live := func(when string) bool {
			t.Helper()
			_, u, err := db.SessionByToken(ctx, token)
			if err != nil && !errors.Is(err, models.ErrNoSession) {
				t.Fatal(err)
			}
			api, err := db.Actor(ctx, models.Credentials{SessionToken: token, Nonce: sess.Nonce})
			if err != nil {
				t.Fatal(err)
			}
			if (u == nil) != (api == nil) {
				t.Errorf("%s: the admin sees %v, the API's cookie + nonce %v", when, u, api)
			}
			return u != nil && u.ID == yui.ID && api != nil && api.ID == yui.ID
		}

		// Used every two days: it slides, the idle one does not.
		for day := 2; day < 30; day += 2 {
			clock.Advance(48 * time.Hour)
			wrote, err := db.TouchSession(ctx, sess, week, "2001:db8::8")
			if err != nil || !wrote {
				t.Fatalf("day %d: touch: %v, wrote %v", day, err, wrote)
			}
			want := clock.Now().Add(week)
			if want.After(end) {
				want = end
			}
			if !sess.ExpiresAt.Equal(want) || !sess.LastSeenAt.Equal(clock.Now()) {
				t.Errorf("day %d: expires %v, last seen %v; want %v, %v", day, sess.ExpiresAt, sess.LastSeenAt, want, clock.Now())
			}
			if !live(fmt.Sprintf("day %d", day)) {
				t.Fatalf("day %d: a session in use ended", day)
			}
			if day == 8 {
				if _, _, err := db.SessionByToken(ctx, idle); !errors.Is(err, models.ErrNoSession) {
					t.Errorf("day 8: the idle session is still live: %v", err)
				}
			}
		}
		list, err := db.ListSessions(ctx, yui.ID)
		if err != nil || len(list) != 1 || list[0].ID != sess.ID {
			t.Fatalf("ListSessions on day 28: %v %+v", err, list)
		}
		if got := list[0]; got.UserAgent != client.UserAgent || got.IP != "2001:db8::8" || !got.CreatedAt.Equal(signedIn) ||
			!got.LastSeenAt.Equal(clock.Now()) || got.ExpiresAt.After(end) {
			t.Errorf("stored session %+v", got)
		}

		// One second before the end it still works; at the end it is
		// over, however recently it was used, and a touch revives nothing.
		clock.Advance(end.Sub(clock.Now()) - time.Second)
		if _, err := db.TouchSession(ctx, sess, week, "2001:db8::8"); err != nil || !sess.ExpiresAt.Equal(end) {
			t.Fatalf("last touch: %v, expires %v, want %v", err, sess.ExpiresAt, end)
		}
		if !live("a second before the end") {
			t.Fatal("the session ended early")
		}
		clock.Advance(time.Second)
		if live("at sign-in + max age") {
			t.Errorf("the session outlived %v after sign-in", models.DefaultSessionMaxAge)
		}
		clock.Advance(seenAgain)
		if wrote, err := db.TouchSession(ctx, sess, week, "2001:db8::8"); err != nil || wrote || live("after a touch") {
			t.Errorf("a touch after the end: %v, wrote %v", err, wrote)
		}
		if list, err := db.ListSessions(ctx, yui.ID); err != nil || len(list) != 0 {
			t.Errorf("ListSessions after the end: %v %+v", err, list)
		}

		// A lifetime shorter than the sliding week is the whole lifetime.
		old, _, err := db.CreateSession(ctx, yui.ID, week)
		if err != nil {
			t.Fatal(err)
		}
		if sessionRows(t, db, sess.ID) != 0 {
			t.Error("a session over its lifetime was not deleted at the next sign-in")
		}
		clock.Advance(30 * time.Hour)
		site := models.DefaultSite()
		site.Clock, site.SessionMaxAge = clock.Now, 24*time.Hour
		db.UseSite(site)
		if _, _, err := db.SessionByToken(ctx, old); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("a 30-hour-old session after the lifetime became 24h: %v, want ErrNoSession", err)
		}
		short, shortSess, err := db.CreateSession(ctx, yui.ID, week)
		if err != nil {
			t.Fatal(err)
		}
		if want := clock.Now().Add(24 * time.Hour); !shortSess.ExpiresAt.Equal(want) {
			t.Errorf("with a 24h lifetime the session expires %v, want %v", shortSess.ExpiresAt, want)
		}
		clock.Advance(12 * time.Hour)
		if _, err := db.TouchSession(ctx, shortSess, week, ""); err != nil || shortSess.ExpiresAt.After(shortSess.CreatedAt.Add(24*time.Hour)) {
			t.Errorf("touch with a 24h lifetime: %v, expires %v", err, shortSess.ExpiresAt)
		}
		clock.Advance(12 * time.Hour)
		if _, _, err := db.SessionByToken(ctx, short); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("a session in use 24h after sign-in with a 24h lifetime: %v, want ErrNoSession", err)
		}
	})
}

// seenAgain is a wait after which a session's use is recorded again.
const seenAgain = models.SessionSeenResolution + time.Second

// The profile's list and its buttons: a user lists and ends their own
// sessions only; the User-Agent is kept bounded and printable.
func TestSessionsListAndEndOnlyTheirUsers(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		clock := useTestClock(db)
		const week = 7 * 24 * time.Hour
		minjun := addAccount(t, db, "minjun", models.RoleAuthor)
		jose := addAccount(t, db, "josé", models.RoleAuthor)
		long := "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)\x00\r\n" + strings.Repeat("ブラウザ", 100)
		_, first, err := db.StartSession(ctx, minjun.ID, week, models.SessionClient{UserAgent: long, IP: strings.Repeat("1", 80)})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		keepToken, keep, _ := db.StartSession(ctx, minjun.ID, week, models.SessionClient{UserAgent: "curl/8.5.0", IP: "198.51.100.4"})
		theirsToken, theirs, _ := db.StartSession(ctx, jose.ID, week, models.SessionClient{UserAgent: "Wget", IP: "198.51.100.5"})
		list, err := db.ListSessions(ctx, minjun.ID)
		if err != nil || len(list) != 2 || list[0].ID != keep.ID || list[1].ID != first.ID {
			t.Fatalf("ListSessions: %v %+v, want the newest first", err, list)
		}
		if ua := list[1].UserAgent; utf8.RuneCountInString(ua) != 255 || strings.ContainsAny(ua, "\x00\r\n") ||
			!strings.HasPrefix(ua, "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)") || len(list[1].IP) != 64 {
			t.Errorf("stored User-Agent %q (%d characters), address %q", ua, utf8.RuneCountInString(ua), list[1].IP)
		}

		// Another user's session cannot be ended through one's own.
		if err := db.EndUserSession(ctx, minjun.ID, theirs.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionByToken(ctx, theirsToken); err != nil {
			t.Errorf("ending another user's session by id worked: %v", err)
		}
		if err := db.EndUserSession(ctx, minjun.ID, first.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.EndUserSession(ctx, minjun.ID, first.ID); err != nil {
			t.Errorf("ending a session twice: %v", err)
		}
		if sessionRows(t, db, first.ID) != 0 {
			t.Error("EndUserSession left the session")
		}
		_, again, _ := db.CreateSession(ctx, minjun.ID, week)
		if n, err := db.EndOtherSessions(ctx, minjun.ID, keep.ID); err != nil || n != 1 || sessionRows(t, db, again.ID) != 0 {
			t.Errorf("EndOtherSessions: %d, %v", n, err)
		}
		if _, _, err := db.SessionByToken(ctx, keepToken); err != nil {
			t.Errorf("EndOtherSessions ended the one it keeps: %v", err)
		}
		if _, _, err := db.SessionByToken(ctx, theirsToken); err != nil {
			t.Errorf("EndOtherSessions ended another user's session: %v", err)
		}
	})
}
