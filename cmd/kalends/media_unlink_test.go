package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestDeleteWithUnlinkNeedsEditPermission (issue 28, finding 8) through the
// API: the uploader, an author, deleting with unlink an image an editor's
// event shows is refused 403 rest_cannot_delete with the count, in the
// caller's language, and nothing changes; the editor's delete with unlink
// removes it from the event as an update does (a revision, a new modified).
func TestDeleteWithUnlinkNeedsEditPermission(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		e := newMediaEnv(t, db, "db")
		author, editor := models.RoleAuthor, models.RoleEditor
		res, b := e.req(t, uploadRequest(t, "hall.png", imagetest.PNG(300, 200), "会場"), author, "author-db")
		if res.StatusCode != 201 {
			t.Fatalf("upload: %d %s", res.StatusCode, b)
		}
		id := int64(jsonMap(t, b)["id"].(float64))
		ev := fmt.Sprintf(`{"title":"Konzert für alle 音乐会","start_date":"2031-05-01 19:00:00","end_date":"2031-05-01 21:00:00","status":"publish","image":%d}`, id)
		req := httptest.NewRequest(http.MethodPost, "/cal/events/v1/events", strings.NewReader(ev))
		req.Header.Set("Content-Type", "application/json")
		if res, b = e.req(t, req, editor, "editor-db"); res.StatusCode != 201 {
			t.Fatalf("create event: %d %s", res.StatusCode, b)
		}
		eventID := int64(jsonMap(t, b)["id"].(float64))
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if _, err := db.Bun.NewUpdate().TableExpr("events").Set("updated_at = ?", old).Where("id = ?", eventID).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		del := fmt.Sprintf("/cal/events/v1/media/%d?unlink=true", id)
		item := fmt.Sprintf("/cal/events/v1/events/%d", eventID)

		res, b = e.req(t, httptest.NewRequest(http.MethodDelete, del, nil), author, "author-db")
		m := jsonMap(t, b)
		data, _ := m["data"].(map[string]any)
		if res.StatusCode != 403 || m["code"] != "rest_cannot_delete" || data["records"] != 1.0 ||
			!strings.Contains(m["message"].(string), "1 record ") {
			t.Fatalf("the author's delete with unlink: %d %s", res.StatusCode, b)
		}
		res, b = e.req(t, httptest.NewRequest(http.MethodDelete, del+"&ml_language=ko", nil), author, "author-db")
		if m = jsonMap(t, b); res.StatusCode != 403 || !strings.Contains(m["message"].(string), "1개") {
			t.Fatalf("the author's delete with unlink in Korean: %d %s", res.StatusCode, b)
		}
		if res, b = e.req(t, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/cal/events/v1/media/%d", id), nil), "", ""); res.StatusCode != 200 {
			t.Fatalf("the image is gone after a refusal: %d %s", res.StatusCode, b)
		}
		_, b = e.req(t, httptest.NewRequest(http.MethodGet, item, nil), editor, "editor-db")
		if m = jsonMap(t, b); m["image"] == false || !strings.HasPrefix(m["modified_utc"].(string), "2020-01-02") {
			t.Fatalf("the event changed after a refusal: %s", b)
		}

		if res, b = e.req(t, httptest.NewRequest(http.MethodDelete, del, nil), editor, "editor-db"); res.StatusCode != 200 {
			t.Fatalf("the editor's delete with unlink: %d %s", res.StatusCode, b)
		}
		_, b = e.req(t, httptest.NewRequest(http.MethodGet, item, nil), editor, "editor-db")
		if m = jsonMap(t, b); m["image"] != false || strings.HasPrefix(m["modified_utc"].(string), "2020-01-02") {
			t.Errorf("the event after the unlink: %s", b)
		}
		res, b = e.req(t, httptest.NewRequest(http.MethodGet, item+"/revisions", nil), editor, "editor-db")
		if res.StatusCode != 200 || !strings.Contains(string(b), `"image_url"`) {
			t.Errorf("no revision of the unlink: %d %s", res.StatusCode, b)
		}
	})
}
