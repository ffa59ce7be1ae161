package admin

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// upload posts file as the multipart field "file" with the CSRF token.
func (b *browser) upload(target, csrf, name string, file []byte) (*reply, string) {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if csrf != "" {
		_ = w.WriteField("_csrf", csrf)
	}
	if file != nil {
		fw, _ := w.CreateFormFile("file", name)
		_, _ = fw.Write(file)
	}
	_ = w.Close()
	req := httptest.NewRequest(http.MethodPost, target, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := b.app.Test(req, -1)
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, _ := io.ReadAll(resp.Body)
	return &reply{StatusCode: resp.StatusCode, Header: resp.Header}, string(out)
}

const sampleICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:x1@elsewhere\r\nSUMMARY:Imported talk\r\n" +
	"DTSTART:20270310T180000Z\r\nDTEND:20270310T190000Z\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:No uid\r\n" +
	"DTSTART:20270310T180000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

// TestImportPage: an editor imports a file (then again: updated), sees the
// skipped event and why; a file that is not iCalendar and a missing CSRF
// token are refused; a subscriber is not offered the form.
func TestImportPage(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		app := newApp(t, db)
		account(t, db, "ed", models.RoleEditor)
		account(t, db, "sub", models.RoleSubscriber)
		b := newBrowser(t, app)
		b.chooseLanguage("ja", b.signIn("ed", "password-ed"))
		_, page := b.get("/admin/import")
		if !strings.Contains(page, `data-testid="import-form"`) || !strings.Contains(page, "イベントの取り込み") {
			t.Fatalf("import page:\n%.2000s", page)
		}
		csrf := csrfOf(t, page)
		for i, want := range []string{"新規 1 件、更新 0 件、スキップ 1 件", "新規 0 件、更新 1 件、スキップ 1 件"} {
			resp, page := b.upload("/admin/import", csrf, "cal.ics", []byte(sampleICS))
			if resp.StatusCode != http.StatusOK || !strings.Contains(page, want) || !strings.Contains(page, "UID がありません") {
				t.Fatalf("import %d: %d\n%.3000s", i, resp.StatusCode, page)
			}
		}
		if p, err := db.ListEvents(t.Context(), nil, models.EventFilter{PerPage: 5, Lang: "en"}); err != nil || p.Total != 1 || p.Items[0].Title != "Imported talk" {
			t.Errorf("events after two imports: %+v %v", p, err)
		}
		if resp, page := b.upload("/admin/import", csrf, "x.ics", []byte("hello")); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `data-testid="import-error"`) {
			t.Errorf("not a calendar: %d", resp.StatusCode)
		}
		if resp, _ := b.upload("/admin/import", "", "cal.ics", []byte(sampleICS)); resp.StatusCode != http.StatusForbidden {
			t.Errorf("without CSRF: %d, want 403", resp.StatusCode)
		}
		s := newBrowser(t, app)
		s.signIn("sub", "password-sub")
		if _, page := s.get("/admin/import"); !strings.Contains(page, `data-testid="import-not-allowed"`) {
			t.Error("a subscriber is offered the import form")
		}
	})
}
