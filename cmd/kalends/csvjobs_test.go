package main

import (
	"bytes"
	"context"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestImportUploadLimit: the admin's CSV upload may send up to
// --import-max-bytes (past the 1 MiB body limit of the rest), and no more;
// every other route keeps its own limit.
func TestImportUploadLimit(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	cfg := &Config{BaseURL: "http://example.test", Location: time.UTC, DefaultLanguage: "en", MaxPerPage: 500, ImportMaxBytes: 3 << 20}
	site := siteOf(cfg)
	db.UseSite(site)
	app, err := newApp(db, site, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateUser(context.Background(), models.Console, models.NewUser{Login: "ed", Password: "password-ed",
		Role: models.RoleEditor, DisplayName: "Ed"}); err != nil {
		t.Fatal(err)
	}
	cookies, csrf := signInForTest(t, app, "ed", "password-ed")
	post := func(path string, size int) int {
		t.Helper()
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		_ = w.WriteField("_csrf", csrf)
		fw, _ := w.CreateFormFile("file", "大きい.csv")
		_, _ = fw.Write([]byte("Event Name,Event Start Date\n"))
		_, _ = fw.Write([]byte(strings.Repeat("Fête de la musique,2027-06-21\n", size/30)))
		_ = w.Close()
		req := httptest.NewRequest(http.MethodPost, path, &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		for k, v := range cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		res, _ := do(t, app, req)
		return res.StatusCode
	}
	if got := post("/admin/import/csv", 2<<20); got != http.StatusSeeOther {
		t.Errorf("2 MiB spreadsheet: %d, want 303", got)
	}
	if got := post("/admin/import/csv", 5<<20); got != http.StatusRequestEntityTooLarge {
		t.Errorf("5 MiB spreadsheet over a 3 MiB limit: %d, want 413", got)
	}
	for _, path := range []string{"/admin/import", "/admin/import/csv/1", "/admin/events"} {
		if got := post(path, 4<<20); got != http.StatusRequestEntityTooLarge {
			t.Errorf("4 MiB to %s: %d, want 413", path, got)
		}
	}
}
