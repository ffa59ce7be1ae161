package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// bombSize is what each test body inflates to: far more than any request
// of the test allocates when the body stays compressed.
const bombSize = 8 << 20

// encodings are the compressed bodies the tests send: each names the
// Content-Encoding header lines and compresses a body as they say.
var encodings = []struct {
	name   string
	header []string
	encode func([]byte) []byte
}{
	{"gzip", []string{"gzip"}, func(b []byte) []byte { return fasthttp.AppendGzipBytes(nil, b) }},
	{"nested", []string{"gzip, gzip"}, func(b []byte) []byte {
		return fasthttp.AppendGzipBytes(nil, fasthttp.AppendGzipBytes(nil, b))
	}},
	{"deflate", []string{"deflate"}, func(b []byte) []byte { return fasthttp.AppendDeflateBytes(nil, b) }},
	{"br", []string{"br"}, func(b []byte) []byte { return fasthttp.AppendBrotliBytes(nil, b) }},
	// Fiber decodes by the last header line; every line counts here.
	{"identity then gzip", []string{"identity", "GZip"}, func(b []byte) []byte { return fasthttp.AppendGzipBytes(nil, b) }},
}

// allocated is the number of bytes the process has allocated so far (the
// runtime's counter): a body inflated anywhere in the app shows in it.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// TestCompressedBodiesAreRefusedBeforeDecoding (issue 28, finding 1: a
// decompression bomb needed no account): a body sent with any
// Content-Encoding but identity is answered 415 with Accept-Encoding:
// identity before anything decodes it, on the JSON API (the caller's
// language), the multipart upload, an admin form and the sign-in form.
// Each body inflates to 8 MiB; the process allocates a few hundred
// kilobytes per request and no temporary file appears. Not parallel: it
// sets TMPDIR and reads the process's allocation counter. On SQLite only:
// the refusal comes before any database work (the sign-in that gives the
// admin form its session is the store's, tested on both dialects).
func TestCompressedBodiesAreRefusedBeforeDecoding(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	db := modelstest.Open(t, models.SQLite)
	app := testApp(t, db, io.Discard)
	if _, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: "ed", Password: "password-ed",
		Role: models.RoleEditor}); err != nil {
		t.Fatal(err)
	}
	cookies, csrf := signInForTest(t, app, "ed", "password-ed")
	bundle, err := i18n.New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}

	filler := bytes.Repeat([]byte("a"), bombSize)
	var upload bytes.Buffer
	mw := multipart.NewWriter(&upload)
	fw, _ := mw.CreateFormFile("file", "bomb.png")
	_, _ = fw.Write(filler)
	_ = mw.Close()
	targets := []struct {
		name, path, contentType string
		body                    []byte
		cookies                 bool
		api                     bool
	}{
		{"API create", "/cal/events/v1/events?ml_language=ja", "application/json",
			append(append([]byte(`{"title":"`), filler...), `","start_date":"2031-01-01","end_date":"2031-01-02"}`...), false, true},
		{"API upload", "/ko/cal/events/v1/media", mw.FormDataContentType(), upload.Bytes(), false, true},
		{"admin form", "/admin/events", "application/x-www-form-urlencoded",
			append([]byte("_csrf="+url.QueryEscape(csrf)+"&title="), filler...), true, false},
		{"sign-in form", "/admin/login", "application/x-www-form-urlencoded",
			append([]byte("login=ed&password="), filler...), false, false},
	}
	for _, tg := range targets {
		for _, enc := range encodings {
			body := enc.encode(tg.body)
			if len(body) > 1<<20 {
				t.Fatalf("%s, %s: the compressed test body is %d bytes, over the body limit", tg.name, enc.name, len(body))
			}
			req := httptest.NewRequest("POST", tg.path, bytes.NewReader(body))
			req.Header.Set("Content-Type", tg.contentType)
			req.Header["Content-Encoding"] = enc.header
			if tg.cookies {
				for k, v := range cookies {
					req.AddCookie(&http.Cookie{Name: k, Value: v})
				}
			}
			entries := tempEntries(tmp)
			before := allocated()
			res, text := do(t, app, req)
			grew := allocated() - before
			where := tg.name + ", " + enc.name
			if res.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("%s: status %d, want 415: %.300s", where, res.StatusCode, text)
			}
			if got := res.Header.Get("Accept-Encoding"); got != "identity" {
				t.Errorf("%s: Accept-Encoding %q, want identity", where, got)
			}
			if grew > bombSize/2 {
				t.Errorf("%s: the process allocated %d MiB for a %d-byte body: something decoded it", where, grew>>20, len(body))
			}
			for name := range tempEntries(tmp) {
				if !entries[name] {
					t.Errorf("%s: a temporary file appeared: %s", where, name)
					_ = os.RemoveAll(filepath.Join(tmp, name))
				}
			}
			if tg.api {
				var e struct {
					Code    string `json:"code"`
					Message string `json:"message"`
					Data    struct {
						Status int `json:"status"`
					} `json:"data"`
				}
				if err := json.Unmarshal([]byte(text), &e); err != nil || e.Code != "rest_unsupported_media_type" || e.Data.Status != 415 {
					t.Errorf("%s: body %.300s, want rest_unsupported_media_type", where, text)
				}
				lang := map[bool]string{true: "ja", false: "ko"}[strings.Contains(tg.path, "ml_language=ja")]
				if want := bundle.T(lang, "error.rest_unsupported_media_type", nil); res.Header.Get("Content-Language") != lang || e.Message != want {
					t.Errorf("%s: message %q in %q, want the caller's language %s", where, e.Message, res.Header.Get("Content-Language"), lang)
				}
			} else if !strings.Contains(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(text, "415") {
				t.Errorf("%s: want the error page, got %s: %.300s", where, res.Header.Get("Content-Type"), text)
			}
		}
	}
	// The same requests uncompressed still work (identity is fine).
	req := httptest.NewRequest("POST", "/cal/events/v1/events", strings.NewReader(`{"title":"x","start_date":"2031-01-01","end_date":"2031-01-02"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "identity")
	if res, text := do(t, app, req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("identity body: %d %.200s, want the anonymous write's 401", res.StatusCode, text)
	}
}

// tempEntries lists the names in dir (the test's TMPDIR, which also holds
// the directories of the test's own databases).
func tempEntries(dir string) map[string]bool {
	out := map[string]bool{}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		out[f.Name()] = true
	}
	return out
}

// signInForTest signs login in through the sign-in form of app and returns
// the cookies and the CSRF token of the admin's forms.
func signInForTest(t *testing.T, app interface {
	Test(*http.Request, ...int) (*http.Response, error)
}, login, password string) (map[string]string, string) {
	t.Helper()
	cookies := map[string]string{}
	send := func(req *http.Request) string {
		for k, v := range cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Body.Close() }()
		b, _ := io.ReadAll(res.Body)
		for _, c := range res.Cookies() {
			cookies[c.Name] = c.Value
		}
		return string(b)
	}
	page := send(httptest.NewRequest("GET", "/admin/login", nil))
	form := url.Values{"login": {login}, "password": {password}, "_csrf": {csrfField.FindStringSubmatch(page)[1]}}
	req := httptest.NewRequest("POST", "/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	send(req)
	page = send(httptest.NewRequest("GET", "/admin/events/new", nil))
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("signed in as %s, no CSRF token in the event form:\n%.1000s", login, page)
	}
	return cookies, m[1]
}
