package admin

import (
	"context"
	"errors"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
	"github.com/kalends/kalends/web/ui"
)

// newApp builds the admin on a fiber app configured as main configures it
// (immutable strings, the web error handler), on db (nil: no database, for
// the pages that need none).
func newApp(t *testing.T, db *models.DB) *fiber.App {
	t.Helper()
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site := models.DefaultSite()
	if db != nil {
		db.UseSite(site)
	}
	d := &ui.Deps{DB: db, I18n: b, Logger: slog.New(slog.DiscardHandler), Site: site}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(d), Immutable: true})
	Register(app, d)
	app.Get("/boom", func(_ *fiber.Ctx) error {
		return errors.New("secret database detail")
	})
	return app
}

func do(t *testing.T, app *fiber.App, target string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestErrorPagesAreHTMLWithoutDetail(t *testing.T) {
	app := newApp(t, nil)
	resp, body := do(t, app, "/boom", "Accept-Language", "ja")
	if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != fiber.MIMETextHTMLCharsetUTF8 {
		t.Errorf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "secret") || !strings.Contains(body, `<html lang="ja">`) {
		t.Errorf("500 page leaks or is not localized:\n%s", body)
	}
	resp, body = do(t, app, "/nothing/here")
	if resp.StatusCode != 404 || !strings.Contains(body, "Page not found") || strings.Contains(body, "Cannot GET") {
		t.Errorf("404 page = %d:\n%s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("error page CSP %q", csp)
	}
}

// Every admin message id written in the web package's code and templates
// exists: a missing one would show as its id.
func TestEveryAdminMessageIDExists(t *testing.T) {
	b, err := i18n.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The .go and .templ files of web and every folder under it (admin,
	// site, ui).
	var files []string
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasSuffix(path, "_templ.go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".templ") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	idRE := regexp.MustCompile(`"(admin\.[a-z0-9_.]+[a-z0-9_])"`)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range idRE.FindAllStringSubmatch(string(src), -1) {
			n++
			if !b.Has(m[1]) {
				t.Errorf("%s: message %q does not exist", f, m[1])
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d message ids found: is the walk broken?", n)
	}
}

// ---------------------------------------------------------------- a browser

// browser sends requests through app and keeps cookies, as a browser does
// (path and expiry rules aside: each test uses few paths).
type browser struct {
	t       *testing.T
	app     *fiber.App
	cookies map[string]*http.Cookie
	header  http.Header // sent with every request
}

func newBrowser(t *testing.T, app *fiber.App) *browser {
	return &browser{t: t, app: app, cookies: map[string]*http.Cookie{}, header: http.Header{}}
}

// reply is what a browser keeps of a response (the body is read whole).
type reply struct {
	StatusCode int
	Header     http.Header
	cookies    []*http.Cookie
}

func (r *reply) Cookies() []*http.Cookie { return r.cookies }

// send makes a request; form (may be nil) is sent url-encoded.
func (b *browser) send(method, target string, form url.Values, header ...string) (*reply, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := b.app.Test(req, -1)
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	out, _ := io.ReadAll(resp.Body)
	return &reply{StatusCode: resp.StatusCode, Header: resp.Header, cookies: resp.Cookies()}, string(out)
}

func (b *browser) get(target string, header ...string) (*reply, string) {
	b.t.Helper()
	return b.send(http.MethodGet, target, nil, header...)
}

var csrfRE = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// csrfOf returns the _csrf value of the first form of a page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no _csrf field in:\n%.2000s", page)
	}
	return m[1]
}

// signIn signs in through the form and returns the dashboard's CSRF token.
func (b *browser) signIn(login, password string) string {
	b.t.Helper()
	_, page := b.get(loginPath)
	resp, body := b.send(http.MethodPost, loginPath, url.Values{"login": {login}, "password": {password}, "_csrf": {csrfOf(b.t, page)}})
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("sign in as %s: %d\n%.1500s", login, resp.StatusCode, body)
	}
	_, page = b.get(dashboardPath)
	return csrfOf(b.t, page)
}

// chooseLanguage picks code in the language switcher (csrf is the
// session's token), as a click on its button does.
func (b *browser) chooseLanguage(code, csrf string) {
	b.t.Helper()
	resp, body := b.send(http.MethodPost, languagePath, url.Values{"lang": {code}, "_csrf": {csrf}, "back": {dashboardPath}})
	if resp.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("choose %s: %d\n%.1500s", code, resp.StatusCode, body)
	}
}

// account creates a user with password "password-<login>".
func account(t *testing.T, db *models.DB, login string, role models.Role) *models.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: login, Password: "password-" + login,
		Email: login + "@example.test", DisplayName: strings.ToUpper(login[:1]) + login[1:], Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var alertRE = regexp.MustCompile(`role="alert"[^>]*>([^<]*)<`)

func TestSignInAndSignOut(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		account(t, db, "ann", models.RoleEditor)
		b := newBrowser(t, app)

		for target, want := range map[string]string{
			"/admin/":                "/admin/login?redirect_to=%2Fadmin%2F",
			"/admin/events?page=2":   "/admin/login?redirect_to=%2Fadmin%2Fevents%3Fpage%3D2",
			"/admin/no/such/page":    "/admin/login?redirect_to=%2Fadmin%2Fno%2Fsuch%2Fpage",
			"/admin":                 "/admin/",
			"/admin/login?lang=ja":   "",
			"/admin/login?lang=nope": "",
		} {
			resp, _ := b.get(target)
			if want == "" {
				if resp.StatusCode != 200 {
					t.Errorf("%s = %d, want the form", target, resp.StatusCode)
				}
				continue
			}
			if (resp.StatusCode != 303 && resp.StatusCode != 301) || resp.Header.Get("Location") != want {
				t.Errorf("%s = %d to %q, want %q", target, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		}

		// The form: its fields and its token.
		b = newBrowser(t, app)
		_, page := b.get("/admin/login?redirect_to=%2Fadmin%2Fevents")
		for _, want := range []string{`name="login"`, `name="password"`, `type="password"`, `<label for="login">`,
			`<label for="password">`, `name="redirect_to" value="/admin/events"`} {
			if !strings.Contains(page, want) {
				t.Errorf("form lacks %s", want)
			}
		}
		token := csrfOf(t, page)

		// Wrong password and unknown login: the same status and message.
		var alerts []string
		for _, creds := range [][2]string{{"ann", "wrong password"}, {"nobody", "wrong password"}, {"ann@example.test", "nope"}} {
			resp, body := b.send("POST", loginPath, url.Values{"login": {creds[0]}, "password": {creds[1]}, "_csrf": {token},
				"redirect_to": {"/admin/events"}})
			m := alertRE.FindStringSubmatch(body)
			if resp.StatusCode != 401 || m == nil {
				t.Fatalf("%s: %d\n%.1500s", creds[0], resp.StatusCode, body)
			}
			alerts = append(alerts, m[1])
			if !strings.Contains(body, `value="`+creds[0]+`"`) || !strings.Contains(body, `aria-invalid="true"`) {
				t.Errorf("%s: the login typed is not kept or not marked", creds[0])
			}
			if _, ok := b.cookies[models.SessionCookie]; ok {
				t.Errorf("%s: a failed sign-in set a session", creds[0])
			}
		}
		if alerts[0] != alerts[1] || alerts[0] != alerts[2] || alerts[0] == "" {
			t.Errorf("messages differ: %q", alerts)
		}

		// Success, by e-mail address in any case: to redirect_to, with a
		// session cookie of the right kind.
		resp, _ := b.send("POST", loginPath, url.Values{"login": {"ANN@example.test"}, "password": {"password-ann"}, "_csrf": {token},
			"redirect_to": {"/admin/events"}})
		if resp.StatusCode != 303 || resp.Header.Get("Location") != "/admin/events" {
			t.Fatalf("sign-in = %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		var sc *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == models.SessionCookie {
				sc = c
			}
		}
		if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteLaxMode || sc.Secure || sc.Path != "/" || sc.MaxAge <= 0 {
			t.Errorf("session cookie %+v", sc)
		}
		resp, page = b.get(dashboardPath)
		if resp.StatusCode != 200 || !strings.Contains(page, `role="status"`) || !strings.Contains(page, `<meta name="kalends-nonce"`) ||
			!strings.Contains(page, `hx-headers="{&#34;X-CSRF-Token&#34;:`) {
			t.Fatalf("dashboard %d:\n%.3000s", resp.StatusCode, page)
		}
		// A signed-in user who opens the form goes on.
		if resp, _ := b.get(loginPath); resp.StatusCode != 303 || resp.Header.Get("Location") != "/admin/" {
			t.Errorf("signed-in /admin/login = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}

		// Sign-out needs the token: without it nothing changes.
		csrf := csrfOf(t, page)
		for _, bad := range []url.Values{{}, {"_csrf": {"forged"}}} {
			if resp, _ := b.send("POST", logoutPath, bad); resp.StatusCode != 403 {
				t.Errorf("sign-out with %v = %d, want 403", bad, resp.StatusCode)
			}
		}
		if resp, _ := b.get(dashboardPath); resp.StatusCode != 200 {
			t.Fatalf("refused sign-out signed out anyway: %d", resp.StatusCode)
		}
		old := b.cookies[models.SessionCookie].Value
		resp, _ = b.send("POST", logoutPath, url.Values{"_csrf": {csrf}})
		if resp.StatusCode != 303 || resp.Header.Get("Location") != loginPath {
			t.Fatalf("sign-out = %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, _, err := db.SessionByToken(context.Background(), old); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("session still alive after sign-out: %v", err)
		}
		_, page = b.get(loginPath)
		if !strings.Contains(page, "You have signed out.") {
			t.Errorf("no sign-out flash:\n%.2000s", page)
		}
		b.cookies[models.SessionCookie] = &http.Cookie{Name: models.SessionCookie, Value: old}
		if resp, _ := b.get(dashboardPath); resp.StatusCode != 303 {
			t.Errorf("old cookie after sign-out = %d", resp.StatusCode)
		}
	})
}

// A session the browser had before signing in (planted by someone else,
// or the user's own) is ended; the new one has a new token.
func TestSignInRotatesTheSession(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newApp(t, db)
		mallory := account(t, db, "mallory", models.RoleSubscriber)
		account(t, db, "ann", models.RoleEditor)
		planted, _, err := db.CreateSession(ctx, mallory.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, app)
		b.cookies[models.SessionCookie] = &http.Cookie{Name: models.SessionCookie, Value: planted}
		_, _ = b.send("POST", logoutPath, nil) // (refused: no token) the planted session stays
		// Signed in as mallory, the form sends them on: sign in from a
		// fresh form instead, as ann would on a shared machine after
		// mallory left the session behind.
		delete(b.cookies, models.SessionCookie)
		_, page := b.get(loginPath)
		b.cookies[models.SessionCookie] = &http.Cookie{Name: models.SessionCookie, Value: planted}
		resp, _ := b.send("POST", loginPath, url.Values{"login": {"ann"}, "password": {"password-ann"}, "_csrf": {csrfOf(t, page)}})
		if resp.StatusCode != 303 {
			t.Fatalf("sign-in = %d", resp.StatusCode)
		}
		if _, _, err := db.SessionByToken(ctx, planted); !errors.Is(err, models.ErrNoSession) {
			t.Errorf("the session before sign-in still works: %v", err)
		}
		now := b.cookies[models.SessionCookie].Value
		if now == planted {
			t.Fatal("session token not rotated")
		}
		if _, u, err := db.SessionByToken(ctx, now); err != nil || u.Login != "ann" {
			t.Errorf("new session: %v %v", u, err)
		}
	})
}

func TestRedirectAfterSignInStaysOnTheSite(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleAuthor)
	for target, want := range map[string]string{
		"/admin/events?status=draft": "/admin/events?status=draft",
		"/admin/":                    "/admin/",
		"":                           "/admin/",
		"//evil.com":                 "/admin/",
		"///evil.com":                "/admin/",
		"https://evil.com":           "/admin/",
		"https:evil.com":             "/admin/",
		`/\evil.com`:                 "/admin/",
		`\/evil.com`:                 "/admin/",
		"/\tevil.com":                "/admin/",
		"javascript:alert(1)":        "/admin/",
		"admin/events":               "/admin/",
	} {
		b := newBrowser(t, app)
		_, page := b.get(loginPath)
		resp, _ := b.send("POST", loginPath, url.Values{"login": {"ann"}, "password": {"password-ann"}, "_csrf": {csrfOf(t, page)},
			"redirect_to": {target}})
		if resp.StatusCode != 303 || resp.Header.Get("Location") != want {
			t.Errorf("redirect_to %q: %d to %q, want %q", target, resp.StatusCode, resp.Header.Get("Location"), want)
		}
		// The form does not carry an unsafe target either.
		_, page = newBrowser(t, app).get(loginPath + "?redirect_to=" + url.QueryEscape(target))
		if want == "/admin/" && target != "/admin/" && strings.Contains(page, `name="redirect_to"`) {
			t.Errorf("form keeps redirect_to %q", target)
		}
	}
}

// The sign-in form has its own CSRF token; a post without it, or one the
// browser marks as cross-site, signs nobody in.
func TestSignInFormIsCSRFProtected(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleAuthor)
	good := url.Values{"login": {"ann"}, "password": {"password-ann"}}
	b := newBrowser(t, app)
	_, page := b.get(loginPath)
	token := csrfOf(t, page)
	for name, tc := range map[string]struct {
		form   url.Values
		header []string
	}{
		"no token":     {good, nil},
		"wrong token":  {url.Values{"login": good["login"], "password": good["password"], "_csrf": {"x" + token}}, nil},
		"cross-site":   {url.Values{"login": good["login"], "password": good["password"], "_csrf": {token}}, []string{"Sec-Fetch-Site", "cross-site"}},
		"header token": {good, []string{"X-CSRF-Token", token}}, // the sign-in form takes the field only
	} {
		resp, body := b.send("POST", loginPath, tc.form, tc.header...)
		if resp.StatusCode != 403 || !strings.Contains(body, `role="alert"`) {
			t.Errorf("%s: %d", name, resp.StatusCode)
		}
		if _, ok := b.cookies[models.SessionCookie]; ok {
			t.Fatalf("%s: signed in", name)
		}
	}
}

// Every state-changing admin request of a signed-in user needs the
// session's token, in the form or in X-CSRF-Token (htmx).
func TestStateChangingRequestsNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleEditor)
	b := newBrowser(t, app)
	csrf := b.signIn("ann", "password-ann")
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if resp, _ := b.send(method, "/admin/events", url.Values{"title": {"x"}}); resp.StatusCode != 403 {
			t.Errorf("%s without token = %d, want 403", method, resp.StatusCode)
		}
	}
	// With the token the request reaches the router (no such route yet).
	if resp, _ := b.send("POST", "/admin/events", url.Values{"_csrf": {csrf}}); resp.StatusCode == 403 {
		t.Errorf("POST with the token refused")
	}
	resp, _ := b.send("POST", logoutPath, url.Values{}, "X-CSRF-Token", csrf, "HX-Request", "true")
	if resp.StatusCode != 303 {
		t.Errorf("sign-out with the htmx header = %d", resp.StatusCode)
	}
}

func TestSignInIsRateLimited(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		account(t, db, "ann", models.RoleEditor)
		b := newBrowser(t, app)
		_, page := b.get(loginPath + "?lang=ja")
		token := csrfOf(t, page)
		// The form posts where the page was shown in Japanese, so its
		// answers speak Japanese too (?lang= stores nothing).
		if !strings.Contains(page, `action="/admin/login?lang=ja"`) {
			t.Fatalf("the sign-in form does not keep ?lang=ja:\n%.2000s", page)
		}
		post := func(login, password string) (*reply, string) {
			return b.send("POST", loginPath+"?lang=ja", url.Values{"login": {login}, "password": {password}, "_csrf": {token}})
		}
		for i := 0; i < models.DefaultLimits().SignInPerLogin; i++ {
			if resp, _ := post("ann", "wrong"); resp.StatusCode != 401 {
				t.Fatalf("failure %d = %d", i+1, resp.StatusCode)
			}
		}
		// Now even the right password waits, in the user's language.
		resp, body := post("ANN", "password-ann")
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "900" || !strings.Contains(body, "しばらく待ってから") {
			t.Errorf("after %d failures: %d %q\n%.1500s", models.DefaultLimits().SignInPerLogin, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if _, ok := b.cookies[models.SessionCookie]; ok {
			t.Fatal("signed in while limited")
		}
		// Per address: many logins from one address.
		for i := models.DefaultLimits().SignInPerLogin; i < models.DefaultLimits().SignInPerAddress; i++ {
			if resp, _ := post("guess"+time.Duration(i).String(), "wrong"); resp.StatusCode != 401 {
				t.Fatalf("address failure %d = %d", i+1, resp.StatusCode)
			}
		}
		if resp, _ := post("someone-else", "x"); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("after %d failures from one address: %d", models.DefaultLimits().SignInPerAddress, resp.StatusCode)
		}
	})
}

var htmlLangRE = regexp.MustCompile(`<html lang="([^"]+)">`)

func htmlLang(page string) string {
	if m := htmlLangRE.FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return ""
}

// SPEC §10: lang parameter > the user's saved language > cookie >
// Accept-Language > site default; the switcher's post is remembered in the
// cookie and the profile.
func TestLanguageOrder(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newApp(t, db)
		ann := account(t, db, "ann", models.RoleEditor)
		ko := "ko"
		if _, err := db.UpdateUser(ctx, models.Console, ann.ID, models.UserUpdate{Locale: &ko}); err != nil {
			t.Fatal(err)
		}

		// Signed out.
		b := newBrowser(t, app)
		for _, tt := range []struct {
			name, target, cookie, accept, want, title string
		}{
			{"site default", loginPath, "", "", "en", "Sign in"},
			{"browser", loginPath, "", "zh-CN,zh;q=0.9", "zh-Hans", "登录"},
			{"cookie over browser", loginPath, "ja", "zh-CN", "ja", "ログイン"},
			{"parameter over cookie", loginPath + "?lang=ko", "ja", "zh-CN", "ko", "로그인"},
			{"unknown values fall through", loginPath + "?lang=fr", "xx", "fr", "en", "Sign in"},
		} {
			delete(b.cookies, langCookie)
			if tt.cookie != "" {
				b.cookies[langCookie] = &http.Cookie{Name: langCookie, Value: tt.cookie}
			}
			_, page := b.get(tt.target, "Accept-Language", tt.accept)
			if got := htmlLang(page); got != tt.want || !strings.Contains(page, "<title>"+tt.title) {
				t.Errorf("%s: <html lang=%q>, want %q with title %q", tt.name, got, tt.want, tt.title)
			}
		}

		// Signed in: the saved language wins over the cookie and the
		// browser; ?lang= wins over it for that page; the switcher saves.
		b = newBrowser(t, app)
		csrf := b.signIn("ann", "password-ann")
		b.cookies[langCookie] = &http.Cookie{Name: langCookie, Value: "ja"}
		b.header.Set("Accept-Language", "zh-CN")
		if _, page := b.get(dashboardPath); htmlLang(page) != "ko" || !strings.Contains(page, "대시보드") {
			t.Errorf("saved language: %q", htmlLang(page))
		}
		if _, page := b.get(dashboardPath + "?lang=zh-hans"); htmlLang(page) != "zh-Hans" || !strings.Contains(page, "仪表盘") {
			t.Errorf("?lang=zh-hans: %q", htmlLang(page))
		}
		resp, _ := b.send(http.MethodPost, languagePath, url.Values{"lang": {"zh-hans"}, "_csrf": {csrf},
			"back": {"/admin/events?status=draft"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin/events?status=draft" {
			t.Errorf("switcher: %d to %q, want 303 back to the page", resp.StatusCode, resp.Header.Get("Location"))
		}
		if !strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), "\n"), langCookie+"=zh-hans") {
			t.Errorf("switcher's choice not remembered in the cookie: %q", resp.Header.Values("Set-Cookie"))
		}
		if u, _ := db.GetUserByLogin(ctx, "ann"); u.Locale != "zh-hans" {
			t.Errorf("switcher's choice not saved in the profile: %q", u.Locale)
		}
		delete(b.cookies, langCookie)
		_, page := b.get(dashboardPath)
		if htmlLang(page) != "zh-Hans" {
			t.Errorf("saved choice not used: %q", htmlLang(page))
		}
		// The switcher offers every language, each named in itself.
		for _, name := range []string{"简体中文", "English", "日本語", "한국어"} {
			if !strings.Contains(page, name) {
				t.Errorf("switcher lacks %s", name)
			}
		}
	})
}

// TestLanguageQueryStoresNothing (issue 28, smaller finding 5: GET
// /admin/…?lang=xx stored a setting, so another site could change it with
// a link or an image): ?lang= shows one page in that language and sets
// neither the cookie nor the profile; the switcher is a post that needs
// the CSRF token (the session's, or the sign-in form's when signed out)
// and comes back to a page of this site only.
func TestLanguageQueryStoresNothing(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newApp(t, db)
		account(t, db, "ann", models.RoleEditor)
		b := newBrowser(t, app)
		csrf := b.signIn("ann", "password-ann")
		for _, p := range []string{dashboardPath + "?lang=ja", "/admin/events?lang=ko", loginPath + "?lang=zh-hans"} {
			resp, page := b.get(p)
			if strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), "\n"), langCookie) {
				t.Errorf("GET %s set the language cookie: %q", p, resp.Header.Values("Set-Cookie"))
			}
			if p != loginPath+"?lang=zh-hans" && htmlLang(page) == "en" {
				t.Errorf("GET %s: the page is not in the language asked", p)
			}
		}
		if u, _ := db.GetUserByLogin(ctx, "ann"); u.Locale != "" && u.Locale != "en" {
			t.Errorf("a GET saved %q in the profile", u.Locale)
		}
		// A post from another site: no token, or the wrong one.
		for _, form := range []url.Values{{"lang": {"ja"}}, {"lang": {"ja"}, "_csrf": {"forged"}}} {
			if resp, _ := b.send(http.MethodPost, languagePath, form); resp.StatusCode != http.StatusForbidden {
				t.Errorf("switcher without the token: %d, want 403", resp.StatusCode)
			}
		}
		if u, _ := db.GetUserByLogin(ctx, "ann"); u.Locale != "" && u.Locale != "en" {
			t.Errorf("a refused post saved %q", u.Locale)
		}
		// An unknown language is refused; a foreign page to go back to is not.
		if resp, _ := b.send(http.MethodPost, languagePath, url.Values{"lang": {"fr"}, "_csrf": {csrf}}); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("unknown language: %d, want 400", resp.StatusCode)
		}
		resp, _ := b.send(http.MethodPost, languagePath, url.Values{"lang": {"ja"}, "_csrf": {csrf}, "back": {"//evil.example/"}})
		if resp.Header.Get("Location") != dashboardPath {
			t.Errorf("foreign back: went to %q", resp.Header.Get("Location"))
		}
		// Signed out: the sign-in page's switcher uses its own token and
		// sets the cookie only.
		out := newBrowser(t, app)
		_, page := out.get(loginPath)
		if resp, _ := out.send(http.MethodPost, languagePath, url.Values{"lang": {"ko"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("signed-out switcher without the token: %d, want 403", resp.StatusCode)
		}
		resp, _ = out.send(http.MethodPost, languagePath, url.Values{"lang": {"ko"}, "_csrf": {csrfOf(t, page)}, "back": {loginPath}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != loginPath {
			t.Errorf("signed-out switcher: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, page := out.get(loginPath); htmlLang(page) != "ko" {
			t.Errorf("sign-in page after choosing Korean: %q", htmlLang(page))
		}
	})
}

func TestSecurityHeadersOnEveryPage(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleEditor)
	b := newBrowser(t, app)
	b.signIn("ann", "password-ann")
	for _, p := range []string{dashboardPath, "/admin/nothing-here"} {
		resp, _ := b.get(p)
		checkPageHeaders(t, p, resp)
	}
	resp, _ := newBrowser(t, app).get(loginPath)
	checkPageHeaders(t, loginPath, resp)
}

func checkPageHeaders(t *testing.T, p string, resp *reply) {
	t.Helper()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: CSP %q lacks %s", p, csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("%s: CSP %q allows unsafe sources", p, csp)
	}
	for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "same-origin", "Cache-Control": "no-store"} {
		if resp.Header.Get(k) != v {
			t.Errorf("%s: %s = %q, want %q", p, k, resp.Header.Get(k), v)
		}
	}
}

func TestDashboardShowsWhatTheUserMaySee(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := newApp(t, db)
		editor := account(t, db, "ed", models.RoleEditor)
		carl := account(t, db, "carl", models.RoleContributor)
		dora := account(t, db, "dora", models.RoleContributor)
		account(t, db, "sub", models.RoleSubscriber)
		tomorrow := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02")
		create := func(u *models.User, title, status string) {
			t.Helper()
			s, start, end := status, tomorrow+" 19:00", tomorrow+" 21:00"
			_, err := db.CreateEvent(ctx, u, models.EventInput{PostInput: models.PostInput{Status: &s},
				Title: &title, StartDate: &start, EndDate: &end, Lang: "en"})
			if err != nil {
				t.Fatal(err)
			}
		}
		create(editor, "Open concert", models.StatusPublish)
		create(carl, "Carl's draft <b>x</b>", models.StatusDraft)
		create(dora, "Dora's secret draft", models.StatusDraft)
		create(dora, "Dora asks to publish", models.StatusPublish) // stored as pending

		look := func(login string) string {
			b := newBrowser(t, app)
			b.signIn(login, "password-"+login)
			resp, page := b.get(dashboardPath)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: dashboard %d", login, resp.StatusCode)
			}
			return page
		}
		page := look("carl")
		for _, want := range []string{"Open concert", "Carl&#39;s draft &lt;b&gt;x&lt;/b&gt;", `data-testid="review"`, `data-testid="recent"`} {
			if !strings.Contains(page, want) {
				t.Errorf("carl's dashboard lacks %s", want)
			}
		}
		for _, hidden := range []string{"Dora&#39;s secret draft", "Dora asks to publish", `data-testid="nav-users"`} {
			if strings.Contains(page, hidden) {
				t.Errorf("carl's dashboard shows %s", hidden)
			}
		}
		page = look("ed")
		for _, want := range []string{"Dora&#39;s secret draft", "Dora asks to publish", "Carl&#39;s draft", "Pending review"} {
			if !strings.Contains(page, want) {
				t.Errorf("the editor's dashboard lacks %s", want)
			}
		}
		if strings.Contains(page, `data-testid="nav-users"`) {
			t.Errorf("an editor is offered the users page")
		}
		page = look("sub")
		if strings.Contains(page, "Carl&#39;s draft") || strings.Contains(page, `data-testid="review"`) || !strings.Contains(page, "Open concert") {
			t.Errorf("subscriber's dashboard:\n%.3000s", page)
		}
		account(t, db, "root", models.RoleAdministrator)
		if page := look("root"); !strings.Contains(page, `data-testid="nav-users"`) {
			t.Errorf("an administrator is not offered the users page")
		}
		// The editor's counts: 1 published, 2 drafts, 1 pending.
		page = look("ed")
		for st, n := range map[string]string{"publish": "1", "draft": "2", "pending": "1"} {
			re := regexp.MustCompile(`data-testid="count-event-` + st + `"[^>]*>.*?<dd>(\d+)</dd>`)
			if m := re.FindStringSubmatch(page); m == nil || m[1] != n {
				t.Errorf("count of %s events: %v, want %s", st, m, n)
			}
		}
	})
}

// The switcher of a page that answers a form post (a 422 re-render, whose
// path takes no GET) comes back to the page the form was on, or to the
// dashboard when the browser does not say which.
func TestLanguageSwitcherOnAFormAnswerGoesBackToTheForm(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	app := newApp(t, db)
	account(t, db, "ann", models.RoleEditor)
	b := newBrowser(t, app)
	csrf := b.signIn("ann", "password-ann")
	backRE := regexp.MustCompile(`name="back" value="([^"]*)"`)
	for _, tt := range []struct{ referer, want string }{
		{"http://example.com/admin/events/new?lang=ja&x=1", "/admin/events/new?x=1"},
		{"", dashboardPath},
		{"https://elsewhere.example/admin/events/new", dashboardPath},
	} {
		resp, page := b.send(http.MethodPost, "/admin/events", url.Values{"_csrf": {csrf}, "title": {""}}, "Referer", tt.referer)
		m := backRE.FindStringSubmatch(page)
		if resp.StatusCode != http.StatusUnprocessableEntity || m == nil || html.UnescapeString(m[1]) != tt.want {
			t.Errorf("referer %q: %d, switcher goes back to %v, want %q", tt.referer, resp.StatusCode, m, tt.want)
		}
	}
}
