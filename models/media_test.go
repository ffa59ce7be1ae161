package models_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kalends/kalends/internal/imagetest"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// eachMediaStore runs fn on both dialects with both stores (database, dir).
func eachMediaStore(t *testing.T, fn func(t *testing.T, db *models.DB)) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		for _, store := range []string{"db", "dir"} {
			t.Run(store, func(t *testing.T) {
				ms := models.MediaStorage{}
				if store == "dir" {
					ms.Dir = t.TempDir()
				}
				db.UseMedia(ms)
				fn(t, db)
			})
		}
	})
}

func TestMediaUploadSizesAndFiles(t *testing.T) {
	eachMediaStore(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		author := newUser(t, db, "author-"+filepath.Base(t.Name())+"@example.test", models.RoleAuthor)
		m, err := db.CreateMedia(ctx, author, models.MediaUpload{FileName: "My Photo.JPG", AltText: " A hall ", Data: imagetest.JPEG(1600, 1200)})
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != "My-Photo" || m.Ext != "jpg" || m.Mime != "image/jpeg" || m.Width != 1600 || m.Height != 1200 || m.AltText != "A hall" {
			t.Fatalf("media = %+v", m)
		}
		want := map[string][2]int{"full": {1600, 1200}, "thumbnail": {150, 150}, "medium": {300, 225}, "large": {1024, 768}}
		got, err := db.Media(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Files) != len(want) {
			t.Fatalf("files = %+v", got.Files)
		}
		for _, f := range got.Files {
			wh := want[f.Size]
			if f.Width != wh[0] || f.Height != wh[1] || f.Filesize <= 0 || f.ETag == "" {
				t.Errorf("%s = %+v, want %v", f.Size, f, wh)
			}
			_, _, data, err := db.MediaFileData(ctx, m.ID, f.Size)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil || format != "jpeg" || cfg.Width != wh[0] || cfg.Height != wh[1] || int64(len(data)) != f.Filesize {
				t.Errorf("%s bytes: %v %s %dx%d len %d", f.Size, err, format, cfg.Width, cfg.Height, len(data))
			}
		}
		if dir := db.MediaStorage().Dir; dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "1", "thumbnail.jpg")); err != nil && m.ID == 1 {
				t.Errorf("no file in the media dir: %v", err)
			}
		}
		if _, _, _, err := db.MediaFileData(ctx, m.ID, "huge"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown size: %v", err)
		}
	})
}

func TestMediaStripsEXIFAndTurns(t *testing.T) {
	eachMediaStore(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		admin := newUser(t, db, "admin-"+filepath.Base(t.Name())+"@example.test", models.RoleAdministrator)
		src := imagetest.JPEGWithGPS(40, 20)
		if !bytes.Contains(src, []byte(imagetest.GPSMarker)) {
			t.Fatal("fixture has no GPS")
		}
		m, err := db.CreateMedia(ctx, admin, models.MediaUpload{FileName: "gps.jpg", Data: src})
		if err != nil {
			t.Fatal(err)
		}
		if m.Width != 20 || m.Height != 40 {
			t.Errorf("orientation not applied: %dx%d", m.Width, m.Height)
		}
		for _, f := range m.Files {
			_, _, data, err := db.MediaFileData(ctx, m.ID, f.Size)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(imagetest.GPSMarker)) || bytes.Contains(data, []byte("Exif\x00\x00")) {
				t.Errorf("%s keeps EXIF", f.Size)
			}
		}
	})
}

func TestMediaRefusals(t *testing.T) {
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		author := newUser(t, db, "author@example.test", models.RoleAuthor)
		contributor := newUser(t, db, "contrib@example.test", models.RoleContributor)
		if _, err := db.CreateMedia(ctx, contributor, models.MediaUpload{Data: imagetest.PNG(10, 10)}); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("contributor: %v", err)
		}
		if _, err := db.CreateMedia(ctx, nil, models.MediaUpload{Data: imagetest.PNG(10, 10)}); !errors.Is(err, models.ErrForbidden) {
			t.Errorf("anonymous: %v", err)
		}
		for name, data := range map[string][]byte{
			"text":  []byte("hello, this is not an image"),
			"svg":   []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>`),
			"html":  []byte("<!DOCTYPE html><html><script>alert(1)</script></html>"),
			"empty": nil,
			"bomb":  imagetest.PNGBomb(50_000, 50_000),
			"wide":  imagetest.PNGBomb(10_001, 10),
			"cut":   imagetest.PNG(20, 20)[:60],
		} {
			var ve *models.ValidationError
			_, err := db.CreateMedia(ctx, author, models.MediaUpload{FileName: "x.png", Data: data})
			if !errors.As(err, &ve) || ve.Field("file") == nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		db.UseMedia(models.MediaStorage{MaxBytes: 100})
		if _, err := db.CreateMedia(ctx, author, models.MediaUpload{Data: imagetest.PNG(50, 50)}); !errors.Is(err, models.ErrInvalid) {
			t.Errorf("too large: %v", err)
		}
	})
}

func TestMediaAsImageAndDelete(t *testing.T) {
	eachMediaStore(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := newUser(t, db, "ed-"+filepath.Base(t.Name())+"@example.test", models.RoleEditor)
		m, err := db.CreateMedia(ctx, ed, models.MediaUpload{FileName: "hall.png", AltText: "The hall", Data: imagetest.PNG(400, 200)})
		if err != nil {
			t.Fatal(err)
		}
		id := strconv.FormatInt(m.ID, 10)
		e, err := db.CreateEvent(ctx, ed, models.EventInput{Title: ptr("Concert"), StartDate: ptr("2026-12-01 20:00:00"), EndDate: ptr("2026-12-01 22:00:00"), ImageURL: ptr(id)})
		if err != nil {
			t.Fatal(err)
		}
		if e.ImageURL != m.Path("full") || models.MediaIDOf(e.ImageURL) != m.ID {
			t.Fatalf("image_url = %q", e.ImageURL)
		}
		v, _, err := db.Venues().Create(ctx, ed, models.VenueInput{Venue: ptr("Hall " + filepath.Base(t.Name())), ImageURL: ptr(id)}, "")
		if err != nil || v.ImageURL != m.Path("full") {
			t.Fatalf("venue: %v %+v", err, v)
		}
		_, err = db.CreateEvent(ctx, ed, models.EventInput{Title: ptr("X"), StartDate: ptr("2026-12-01 20:00:00"), EndDate: ptr("2026-12-01 22:00:00"), ImageURL: ptr("987654")})
		var ve *models.ValidationError
		if !errors.As(err, &ve) || ve.Field("image") == nil || ve.Field("image").Reason != "media.error.unknown_image" {
			t.Fatalf("unknown id: %v", err)
		}
		uses, err := db.MediaUses(ctx, ed, m.ID)
		if err != nil || len(uses.Shown) != 2 || uses.Hidden != 0 {
			t.Fatalf("uses = %v %+v", err, uses)
		}
		list, n, err := db.ListMedia(ctx, ed, models.MediaQuery{Search: "HALL"})
		if err != nil || n != 1 || len(list) != 1 || len(list[0].Files) != 3 {
			t.Fatalf("list = %v %d %+v", err, n, list)
		}
		if err := db.DeleteMedia(ctx, ed, m.ID, false); !errors.As(err, &ve) || ve.Field("id").Reason != "media.error.in_use" {
			t.Fatalf("delete in use: %v", err)
		}
		if err := db.DeleteMedia(ctx, ed, m.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Media(ctx, m.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("after delete: %v", err)
		}
		e2, err := db.GetEvent(ctx, ed, models.Ref{ID: e.ID}, "")
		if err != nil || e2.ImageURL != "" {
			t.Errorf("event keeps image: %v %q", err, e2.ImageURL)
		}
	})
}
