package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// webpImage is a 1×1 lossless WebP file (RIFF, VP8L).
func webpImage(t *testing.T) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMediaTextsAreTranslatable: an image's title and alt text written
// with ml_language=ja are its Japanese translation: read in Japanese they
// show, read in English (the site's language) or Korean (no translation)
// the image's own texts do; an empty translated field falls back; the list
// and its search follow; the answer lists the translated languages. A
// WebP upload is read and stored like the other formats. Both dialects.
func TestMediaTextsAreTranslatable(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		e := newMediaEnv(t, db, "db")
		ed := models.RoleEditor
		login := string(ed) + "-db"
		res, b := e.req(t, uploadRequest(t, "hall.png", imagetest.PNG(800, 600), "The hall at night"), ed, login)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.StatusCode, b)
		}
		id := int64(jsonMap(t, b)["id"].(float64))
		item := fmt.Sprintf("/cal/events/v1/media/%d", id)
		patch := func(lang, body string) map[string]any {
			req := httptest.NewRequest(http.MethodPatch, item+"?ml_language="+lang, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			res, b := e.req(t, req, ed, login)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("patch %s: %d %s", lang, res.StatusCode, b)
			}
			return jsonMap(t, b)
		}
		get := func(lang string) map[string]any {
			res, b := e.req(t, httptest.NewRequest(http.MethodGet, item+"?ml_language="+lang, nil), "", "")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("get %s: %d %s", lang, res.StatusCode, b)
			}
			return jsonMap(t, b)
		}
		got := patch("ja", `{"title":"ホール","alt_text":"夜のホール"}`)
		if got["alt_text"] != "夜のホール" || got["title"] != "ホール" || fmt.Sprint(got["translations"]) != "[ja]" {
			t.Errorf("the Japanese update answered %v", got)
		}
		for lang, want := range map[string]string{"ja": "夜のホール", "en": "The hall at night", "ko": "The hall at night"} {
			if got := get(lang)["alt_text"]; got != want {
				t.Errorf("alt text in %s: %v, want %q", lang, got, want)
			}
		}
		patch("en", `{"alt_text":"The hall, lit"}`)
		if got := get("en")["alt_text"]; got != "The hall, lit" {
			t.Errorf("the site language's update changed no own text: %v", got)
		}
		if got := get("ja")["alt_text"]; got != "夜のホール" {
			t.Errorf("the site language's update changed the translation: %v", got)
		}
		patch("ja", `{"alt_text":""}`)
		if got := get("ja"); got["alt_text"] != "The hall, lit" || got["title"] != "ホール" {
			t.Errorf("an emptied translated field: %v", got)
		}
		res, b = e.req(t, httptest.NewRequest(http.MethodGet, "/cal/events/v1/media?search=ホール&ml_language=ja", nil), ed, login)
		if list := jsonMap(t, b)["media"].([]any); res.StatusCode != http.StatusOK || len(list) != 1 || list[0].(map[string]any)["title"] != "ホール" {
			t.Errorf("search of a translated title: %d %s", res.StatusCode, b)
		}

		// WebP is read (golang.org/x/image/webp) and kept as PNG, as GIF is:
		// the standard library has no WebP encoder.
		res, b = e.req(t, uploadRequest(t, "photo.webp", webpImage(t), "WebP"), ed, login)
		img := jsonMap(t, b)
		if res.StatusCode != http.StatusCreated || img["extension"] != "png" || img["width"] != 1.0 || img["height"] != 1.0 || img["mime_type"] != "image/png" {
			t.Errorf("WebP upload: %d %s", res.StatusCode, b)
		}
	})
}
