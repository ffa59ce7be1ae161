package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // decodes the served sizes
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// mediaEnv is the assembled app with the media library in one store, and
// an application password per role.
type mediaEnv struct {
	app *fiber.App
	pw  map[models.Role]string
}

func newMediaEnv(t *testing.T, db *models.DB, store string) *mediaEnv {
	t.Helper()
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500,
		DB: "sqlite:" + t.TempDir() + "/k.db", MediaStore: store, MediaMaxBytes: 10 << 20}
	if store == "dir" {
		cfg.MediaDir = t.TempDir()
	}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := &mediaEnv{app: app, pw: map[models.Role]string{}}
	ctx := context.Background()
	for _, r := range []models.Role{models.RoleContributor, models.RoleAuthor, models.RoleEditor} {
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: string(r) + "-" + store, Password: "correct horse battery", Role: r})
		if err != nil {
			t.Fatal(err)
		}
		if e.pw[r], _, err = db.CreateAppPassword(ctx, u.ID, "tests"); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// mediaResp is a response read whole.
type mediaResp struct {
	StatusCode int
	Header     http.Header
}

func (e *mediaEnv) req(t *testing.T, req *http.Request, as models.Role, login string) (*mediaResp, []byte) {
	t.Helper()
	if as != "" {
		req.SetBasicAuth(login, e.pw[as])
	}
	res, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &mediaResp{res.StatusCode, res.Header}, b
}

func uploadRequest(t *testing.T, name string, data []byte, alt string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = w.WriteField("alt_text", alt)
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, "/cal/events/v1/media", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return req
}

func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, b)
	}
	return m
}

// TestMediaUploadUseReadAndServe is the acceptance test of the media
// library: upload, resize, use as an event image, read back through the
// API with real sizes, and serve the file, on both dialects and both stores.
func TestMediaUploadUseReadAndServe(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		for _, store := range []string{"db", "dir"} {
			t.Run(store, func(t *testing.T) {
				e := newMediaEnv(t, db, store)
				author, editor := models.RoleAuthor, models.RoleEditor
				login := func(r models.Role) string { return string(r) + "-" + store }

				res, b := e.req(t, uploadRequest(t, "Hall photo.jpg", imagetest.JPEG(1600, 1200), "The hall"), author, login(author))
				if res.StatusCode != 201 {
					t.Fatalf("upload: %d %s", res.StatusCode, b)
				}
				img := jsonMap(t, b)
				id := int64(img["id"].(float64))
				if img["width"] != 1600.0 || img["height"] != 1200.0 || img["extension"] != "jpg" || img["alt_text"] != "The hall" ||
					img["filesize"].(float64) <= 0 || !strings.HasPrefix(img["url"].(string), "http://example.test/media/") {
					t.Fatalf("image = %s", b)
				}
				if loc := res.Header.Get("Location"); loc != fmt.Sprintf("http://example.test/cal/events/v1/media/%d", id) {
					t.Errorf("Location = %q", loc)
				}

				// Used as an event's image by id: the event carries the object.
				ev := fmt.Sprintf(`{"title":"Concert","start_date":"2026-12-01 20:00:00","end_date":"2026-12-01 22:00:00","status":"publish","image":%d}`, id)
				req := httptest.NewRequest(http.MethodPost, "/cal/events/v1/events", strings.NewReader(ev))
				req.Header.Set("Content-Type", "application/json")
				res, b = e.req(t, req, editor, login(editor))
				if res.StatusCode != 201 {
					t.Fatalf("create event: %d %s", res.StatusCode, b)
				}
				eventID := int64(jsonMap(t, b)["id"].(float64))
				res, b = e.req(t, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/cal/events/v1/events/%d", eventID), nil), "", "")
				if res.StatusCode != 200 {
					t.Fatalf("get event: %d %s", res.StatusCode, b)
				}
				if ld, _ := jsonMap(t, b)["json_ld"].(map[string]any); ld["image"] != img["url"] {
					t.Errorf("json_ld image = %v, want %v", ld["image"], img["url"])
				}
				got := jsonMap(t, b)["image"].(map[string]any)
				if got["id"] != float64(id) || got["width"] != 1600.0 || got["url"] != img["url"] {
					t.Fatalf("event image = %v", got)
				}
				sizes := got["sizes"].(map[string]any)
				want := map[string][2]float64{"thumbnail": {150, 150}, "medium": {300, 225}, "large": {1024, 768}}
				for name, wh := range want {
					s, _ := sizes[name].(map[string]any)
					if s == nil || s["width"] != wh[0] || s["height"] != wh[1] || s["mime-type"] != "image/jpeg" || s["filesize"].(float64) <= 0 {
						t.Fatalf("size %s = %v", name, s)
					}
				}

				// The file itself, as a browser gets it.
				thumb := strings.TrimPrefix(sizes["thumbnail"].(map[string]any)["url"].(string), "http://example.test")
				res, b = e.req(t, httptest.NewRequest(http.MethodGet, thumb, nil), "", "")
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" ||
					res.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
					t.Fatalf("serve: %d %v", res.StatusCode, res.Header)
				}
				if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width != 150 || cfg.Height != 150 ||
					float64(len(b)) != sizes["thumbnail"].(map[string]any)["filesize"] {
					t.Errorf("served thumbnail: %v %dx%d", err, cfg.Width, cfg.Height)
				}
				req = httptest.NewRequest(http.MethodGet, thumb, nil)
				req.Header.Set("If-None-Match", res.Header.Get("ETag"))
				if res, _ = e.req(t, req, "", ""); res.StatusCode != 304 {
					t.Errorf("If-None-Match: %d", res.StatusCode)
				}

				// GPS never comes back.
				res, b = e.req(t, uploadRequest(t, "gps.jpg", imagetest.JPEGWithGPS(64, 32), ""), author, login(author))
				if res.StatusCode != 201 {
					t.Fatalf("upload gps: %d %s", res.StatusCode, b)
				}
				full := strings.TrimPrefix(jsonMap(t, b)["url"].(string), "http://example.test")
				if _, b = e.req(t, httptest.NewRequest(http.MethodGet, full, nil), "", ""); bytes.Contains(b, []byte(imagetest.GPSMarker)) || len(b) == 0 {
					t.Errorf("served file keeps the GPS EXIF (%d bytes)", len(b))
				}

				// Delete: refused while in use, then with the links removed.
				del := fmt.Sprintf("/cal/events/v1/media/%d", id)
				if res, b = e.req(t, httptest.NewRequest(http.MethodDelete, del, nil), author, login(author)); res.StatusCode != 400 ||
					!strings.Contains(string(b), "record") {
					t.Errorf("delete in use: %d %s", res.StatusCode, b)
				}
				// The event is the editor's: the uploader may not remove the
				// image from it (TestDeleteWithUnlinkNeedsEditPermission);
				// the editor may.
				if res, b = e.req(t, httptest.NewRequest(http.MethodDelete, del+"?unlink=true", nil), editor, login(editor)); res.StatusCode != 200 {
					t.Errorf("delete unlinking: %d %s", res.StatusCode, b)
				}
				if res, _ = e.req(t, httptest.NewRequest(http.MethodGet, thumb, nil), "", ""); res.StatusCode != 404 {
					t.Errorf("deleted file: %d", res.StatusCode)
				}
				_, b = e.req(t, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/cal/events/v1/events/%d", eventID), nil), "", "")
				if jsonMap(t, b)["image"] != false {
					t.Errorf("event keeps the deleted image: %s", b)
				}
			})
		}
	})
}

// TestMediaUploadRefusals: what is not a JPEG, PNG, WebP or GIF (whatever
// its name says), a decompression bomb, an unknown image id, and a
// contributor's upload are refused in the API's error shape.
func TestMediaUploadRefusals(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		e := newMediaEnv(t, db, "db")
		author := models.RoleAuthor
		for name, data := range map[string][]byte{
			"svg":  []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
			"html": []byte(`<html><body onload="alert(1)">x</body></html>`),
			"text": []byte("just text"),
			"bomb": imagetest.PNGBomb(50_000, 50_000),
		} {
			res, b := e.req(t, uploadRequest(t, "photo.png", data, ""), author, "author-db")
			m := jsonMap(t, b)
			if res.StatusCode != 400 || m["code"] != "rest_invalid_param" {
				t.Errorf("%s: %d %s", name, res.StatusCode, b)
			}
		}
		res, b := e.req(t, uploadRequest(t, "ok.png", imagetest.PNG(10, 10), ""), models.RoleContributor, "contributor-db")
		if res.StatusCode != 403 {
			t.Errorf("contributor: %d %s", res.StatusCode, b)
		}
		req := httptest.NewRequest(http.MethodPost, "/cal/events/v1/media", strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		if res, b = e.req(t, req, author, "author-db"); res.StatusCode != 400 {
			t.Errorf("no file: %d %s", res.StatusCode, b)
		}
		req = httptest.NewRequest(http.MethodPost, "/cal/events/v1/venues", strings.NewReader(`{"venue":"Hall","image":424242}`))
		req.Header.Set("Content-Type", "application/json")
		if res, b = e.req(t, req, author, "author-db"); res.StatusCode != 400 || !strings.Contains(string(b), "424242") {
			t.Errorf("unknown image id: %d %s", res.StatusCode, b)
		}
		if res, b = e.req(t, httptest.NewRequest(http.MethodGet, "/cal/events/v1/media/424242", nil), "", ""); res.StatusCode != 404 {
			t.Errorf("unknown media: %d %s", res.StatusCode, b)
		}
	})
}
