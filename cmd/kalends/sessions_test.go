package main

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// sessionClock is a site clock the test moves.
type sessionClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *sessionClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *sessionClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// agent is a browser on the assembled app: its User-Agent, its address
// (sent as X-Forwarded-For from a trusted proxy) and its cookies.
type agent struct {
	t       *testing.T
	app     *fiber.App
	ua, ip  string
	cookies map[string]*http.Cookie
	// lastCookies and lastLocation are of the last answer.
	lastCookies  []*http.Cookie
	lastLocation string
	// signInAge is the Max-Age of the session cookie of the last sign-in.
	signInAge int
}

func (a *agent) send(method, target string, form url.Values, header ...string) (int, string) {
	a.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", a.ua)
	req.Header.Set("X-Forwarded-For", a.ip)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	for _, c := range a.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	res, page := do(a.t, a.app, req) //nolint:bodyclose // do reads and closes it
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(a.cookies, c.Name)
		} else {
			a.cookies[c.Name] = c
		}
	}
	a.lastCookies, a.lastLocation = res.Cookies(), res.Header.Get("Location")
	return res.StatusCode, page
}

// signIn signs in through the form and returns the dashboard.
func (a *agent) signIn(login, password string) string {
	a.t.Helper()
	_, page := a.send("GET", "/admin/login", nil)
	if st, body := a.send("POST", "/admin/login", url.Values{"login": {login}, "password": {password},
		"_csrf": {csrfField.FindStringSubmatch(page)[1]}}); st != 303 {
		a.t.Fatalf("sign-in from %s: %d %.500s", a.ip, st, body)
	}
	a.signInAge = a.sessionCookieAge()
	_, page = a.send("GET", "/admin/", nil)
	return page
}

// sessionCookieAge is the Max-Age of the session cookie of the last answer
// (-1: none was set).
func (a *agent) sessionCookieAge() int {
	for _, c := range a.lastCookies {
		if c.Name == models.SessionCookie {
			return c.MaxAge
		}
	}
	return -1
}

// apiSignedIn reports whether the API takes the agent's cookie and nonce
// (a draft list needs a signed-in caller; anonymous callers get 400).
func (a *agent) apiSignedIn(nonce string) bool {
	a.t.Helper()
	st, _ := a.send("GET", "/cal/events/v1/events?status=draft", nil, "X-WP-Nonce", nonce)
	return st == 200
}

// signedIn reports whether the admin takes the agent's cookie.
func (a *agent) signedIn() bool {
	a.t.Helper()
	st, _ := a.send("GET", "/admin/", nil)
	return st == 200
}

// listedSession is one row of the profile's sessions table.
type listedSession struct {
	browser, address, id, lastSeen, signedIn string
	current                                  bool
}

var (
	sessionRowRE = regexp.MustCompile(`(?s)<tr data-testid="session-row"( data-current)?>(.*?)</tr>`)
	// sessionFieldRE finds the cell holding the element of a test id.
	sessionFieldRE = func(id string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)data-testid="` + id + `"[^>]*>(.*?)</td>`)
	}
	sessionBrowserRE  = regexp.MustCompile(`data-testid="session-browser"[^>]*>([^<]*)<`)
	sessionAddressRE  = sessionFieldRE("session-address")
	sessionSignedInRE = sessionFieldRE("session-signed-in")
	sessionLastSeenRE = sessionFieldRE("session-last-seen")
	sessionIDRE       = regexp.MustCompile(`name="session" value="([0-9a-f]{64})"`)
	tagRE             = regexp.MustCompile(`<[^>]*>`)
)

// listedSessions reads the sessions table of a profile page.
func listedSessions(t *testing.T, page string) []listedSession {
	t.Helper()
	var out []listedSession
	for _, m := range sessionRowRE.FindAllStringSubmatch(page, -1) {
		field := func(re *regexp.Regexp) string {
			f := re.FindStringSubmatch(m[2])
			if f == nil {
				t.Fatalf("session row without %s:\n%s", re, m[2])
			}
			// The text a reader sees: tags out (a line-break
			// opportunity is no space), white space as one space.
			return html.UnescapeString(strings.Join(strings.Fields(tagRE.ReplaceAllString(strings.ReplaceAll(f[1], "<wbr>", ""), " ")), " "))
		}
		out = append(out, listedSession{browser: field(sessionBrowserRE), address: field(sessionAddressRE), id: field(sessionIDRE),
			lastSeen: field(sessionLastSeenRE), signedIn: field(sessionSignedInRE), current: m[1] != ""})
	}
	return out
}

// Issue 28, Deliver 8: the profile lists the user's live sessions with
// browser, address, sign-in and last-seen times (site zone, user's
// language), the current one marked, and ends one of them (its cookie is
// signed out, in the admin and on the API's cookie + nonce) or all the
// others; ending the current one signs out. Through the assembled app,
// behind a trusted proxy, on both dialects. The cookie never outlives the
// session's lifetime.
func TestProfileListsAndEndsSessions(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		tokyo, err := time.LoadLocation("Asia/Tokyo")
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{BaseURL: "http://example.test", Location: tokyo, DefaultLanguage: "en", MaxPerPage: 500,
			TrustedProxies: []string{"0.0.0.0"}, SessionMaxAge: 10 * 24 * time.Hour}
		for _, p := range cfg.TrustedProxies {
			n, err := parseProxy(p)
			if err != nil {
				t.Fatal(err)
			}
			cfg.TrustedNets = append(cfg.TrustedNets, n)
		}
		clock := &sessionClock{now: time.Date(2027, 3, 10, 9, 0, 0, 0, time.UTC)} // 18:00 in Tokyo, a Wednesday
		site := siteOf(cfg)
		site.Clock = clock.Now
		db.UseSite(site)
		app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "misaki", Password: "password-misaki",
			DisplayName: "佐藤 美咲", Role: models.RoleAuthor}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "jiwoo", Password: "password-jiwoo",
			DisplayName: "김지우", Role: models.RoleAuthor}); err != nil {
			t.Fatal(err)
		}
		newAgent := func(ua, ip string) *agent {
			return &agent{t: t, app: app, ua: ua, ip: ip, cookies: map[string]*http.Cookie{}}
		}
		firefox := newAgent("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "203.0.113.9")
		iphone := newAgent("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "+
			"Version/17.5 Mobile/15E148 Safari/604.1", "2001:db8:4::1")
		firefox.signIn("misaki", "password-misaki")
		if week := int((7 * 24 * time.Hour).Seconds()); firefox.signInAge != week {
			t.Errorf("the cookie of a sign-in lives %d s, want the %d of 7 days without use", firefox.signInAge, week)
		}
		clock.Advance(10 * time.Minute)
		iphonePage := iphone.signIn("misaki", "password-misaki")
		iphoneNonce := nonceMeta.FindStringSubmatch(iphonePage)[1]
		if !iphone.apiSignedIn(iphoneNonce) {
			t.Fatal("the iPhone's cookie + nonce does not reach the API")
		}
		jiwoo := newAgent("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.68", "198.51.100.20")
		jiwoo.signIn("jiwoo", "password-jiwoo")

		// The list, seen from Firefox: both sessions, this one first and
		// marked, nothing of jiwoo's, times in Tokyo's zone.
		_, page := firefox.send("GET", "/admin/profile", nil)
		rows := listedSessions(t, page)
		if len(rows) != 2 {
			t.Fatalf("%d sessions listed, want 2:\n%+v", len(rows), rows)
		}
		if r := rows[0]; !r.current || r.browser != "Firefox on Linux" || r.address != "203.0.113.9" ||
			r.signedIn != "Mar 10, 2027 6:00 PM" || r.lastSeen != "Now" {
			t.Errorf("current session listed as %+v", r)
		}
		if r := rows[1]; r.current || r.browser != "Safari on iPhone" || r.address != "2001:db8:4::1" ||
			r.signedIn != "Mar 10, 2027 6:10 PM" || r.lastSeen != r.signedIn {
			t.Errorf("the iPhone's session listed as %+v", r)
		}
		for _, want := range []string{`<th scope="col">Browser</th>`, `<th scope="col">IP address</th>`, `>This browser</span>`,
			`aria-label="End session: Safari on iPhone (IP address 2001:db8:4::1)"`, `data-testid="sessions-end-others"`,
			`title="Wed, Mar 10, 2027, 6:00 PM"`, `>2001:db8:4::1<`,
			"A session ends after 7 days without use, and 10 days after signing in"} {
			if !strings.Contains(page, want) {
				t.Errorf("the profile lacks %s", want)
			}
		}
		if strings.Contains(page, "Gecko/20100101") || strings.Contains(page, "198.51.100.20") {
			t.Error("the profile shows a raw User-Agent or another user's session")
		}
		csrf := csrfField.FindStringSubmatch(page)[1]
		iphoneID := rows[1].id

		// Last seen is written at most every few minutes, with the
		// sliding expiry, and the cookie follows it without outliving
		// the session's 10 days.
		lastSeen := func() time.Time {
			t.Helper()
			var s models.Session
			if err := db.Bun.NewSelect().Model(&s).Where("id = ?", iphoneID).Scan(ctx); err != nil {
				t.Fatal(err)
			}
			return s.LastSeenAt
		}
		before := lastSeen()
		clock.Advance(time.Minute)
		if !iphone.signedIn() || !lastSeen().Equal(before) || iphone.sessionCookieAge() != -1 {
			t.Errorf("a request a minute after sign-in wrote the session (last seen %v, was %v; cookie %d)", lastSeen(), before, iphone.sessionCookieAge())
		}
		clock.Advance(6 * 24 * time.Hour)
		if !iphone.signedIn() || !lastSeen().Equal(clock.Now()) {
			t.Errorf("a request six days later: last seen %v, want %v", lastSeen(), clock.Now())
		}
		if age, want := iphone.sessionCookieAge(), int((10*24*time.Hour - 6*24*time.Hour - time.Minute).Seconds()); age != want {
			t.Errorf("the slid cookie lives %d s, want %d (the rest of the 10 days, not 7 more)", age, want)
		}
		clock.Advance(time.Hour) // Firefox's own session slides too
		_, page = firefox.send("GET", "/admin/profile", nil)
		if rows := listedSessions(t, page); len(rows) != 2 || rows[1].lastSeen != "Mar 16, 2027 6:11 PM" {
			t.Errorf("after the iPhone's use: %+v", rows)
		}

		// Ending needs the CSRF token; a malformed id is a bad request;
		// another user's session cannot be ended by id.
		if st, _ := firefox.send("POST", "/admin/profile/sessions/end", url.Values{"session": {iphoneID}}); st != 403 {
			t.Errorf("ending without the token: %d, want 403", st)
		}
		if st, _ := firefox.send("POST", "/admin/profile/sessions/end", url.Values{"session": {"nope"}, "_csrf": {csrf}}); st != 400 {
			t.Errorf("ending a malformed id: %d, want 400", st)
		}
		var theirs models.Session
		if err := db.Bun.NewSelect().Model(&theirs).Where("ip = ?", "198.51.100.20").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if st, _ := firefox.send("POST", "/admin/profile/sessions/end", url.Values{"session": {theirs.ID}, "_csrf": {csrf}}); st != 303 || !jiwoo.signedIn() {
			t.Errorf("ending another user's session: %d, and it is over: %v", st, !jiwoo.signedIn())
		}
		if !iphone.signedIn() {
			t.Fatal("the iPhone was signed out by a refused request")
		}

		// Firefox ends the iPhone's session: its cookie is signed out, in
		// the admin and on the API.
		st, _ := firefox.send("POST", "/admin/profile/sessions/end", url.Values{"session": {iphoneID}, "_csrf": {csrf}})
		if loc := firefox.lastLocation; st != 303 || loc != "/admin/profile#sessions" {
			t.Fatalf("ending a session: %d to %q", st, loc)
		}
		_, page = firefox.send("GET", "/admin/profile", nil)
		if rows := listedSessions(t, page); len(rows) != 1 || !rows[0].current ||
			!strings.Contains(page, "The session has been ended") || !strings.Contains(page, `data-testid="sessions-only-this"`) {
			t.Errorf("after ending the iPhone's session: %+v", rows)
		}
		if iphone.apiSignedIn(iphoneNonce) {
			t.Error("the ended session's cookie + nonce still reaches the API")
		}
		if iphone.signedIn() {
			t.Error("the ended session's cookie still opens the admin")
		}

		// "End all other sessions" keeps the current one.
		iphone.signIn("misaki", "password-misaki")
		clock.Advance(time.Minute)
		tablet := newAgent("Mozilla/5.0 (Linux; Android 14; SM-X710N) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Safari/537.36", "192.0.2.44")
		tablet.signIn("misaki", "password-misaki")
		_, page = firefox.send("GET", "/admin/profile", nil)
		if rows := listedSessions(t, page); len(rows) != 3 || rows[1].browser != "Samsung Internet on Android" || rows[2].browser != "Safari on iPhone" {
			t.Errorf("three sessions: %+v", rows)
		}
		if st, _ := firefox.send("POST", "/admin/profile/sessions/end-others", url.Values{"_csrf": {csrf}}); st != 303 {
			t.Fatalf("end all others: %d", st)
		}
		if iphone.signedIn() || tablet.signedIn() || !firefox.signedIn() || !jiwoo.signedIn() {
			t.Errorf("after ending all others: iPhone %v, tablet %v, this one %v, another user %v",
				iphone.signedIn(), tablet.signedIn(), firefox.signedIn(), jiwoo.signedIn())
		}

		// In Japanese, then ending the current session signs out.
		_, page = firefox.send("GET", "/admin/profile?lang=ja", nil)
		rows = listedSessions(t, page)
		if len(rows) != 1 || rows[0].browser != "Linux の Firefox" || rows[0].signedIn != "2027年3月10日 18:00" ||
			!strings.Contains(page, "このブラウザー") || !strings.Contains(page, "ログインから10日で終了します") {
			t.Errorf("the Japanese list: %+v", rows)
		}
		st, _ = firefox.send("POST", "/admin/profile/sessions/end", url.Values{"session": {rows[0].id}, "_csrf": {csrf}})
		if loc := firefox.lastLocation; st != 303 || loc != "/admin/login" || firefox.cookies[models.SessionCookie] != nil {
			t.Errorf("ending the current session: %d to %q, cookie %v", st, loc, firefox.cookies[models.SessionCookie])
		}
		if firefox.signedIn() {
			t.Error("still signed in after ending the current session")
		}
		if n, err := db.Bun.NewSelect().TableExpr("sessions").Where("user_id = (SELECT id FROM users WHERE login = ?)", "misaki").Count(ctx); err != nil || n != 0 {
			t.Errorf("misaki's sessions left: %d %v", n, err)
		}

		// With a lifetime shorter than the 7 days without use, a new
		// sign-in's cookie lasts the lifetime, and the page says so.
		site.SessionMaxAge = 48 * time.Hour
		firefox.signIn("misaki", "password-misaki")
		if want := int((48 * time.Hour).Seconds()); firefox.signInAge != want {
			t.Errorf("with a 2-day lifetime the cookie lives %d s, want %d", firefox.signInAge, want)
		}
		if _, page = firefox.send("GET", "/admin/profile?lang=ja", nil); !strings.Contains(page, "2日で終了します") {
			t.Errorf("the intro does not follow the lifetime")
		}
	})
}
