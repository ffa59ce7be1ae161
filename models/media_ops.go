package models

import (
	"context"
	"os"
	"strconv"
	"strings"
)

// MediaQuery narrows the media list: a search in name, title and alt text,
// and a page (1-based) of PerPage images, newest first.
type MediaQuery struct {
	Search        string
	Page, PerPage int
}

// ListMedia returns a page of the library and the number of images matching.
// Everyone who may upload sees the whole library (as in WordPress, where
// the library is shared by the users with upload_files).
func (s *Store) ListMedia(ctx context.Context, actor *User, q MediaQuery) ([]Media, int, error) {
	if !MayUploadMedia(actor) {
		return nil, 0, refuse(actor, KindMedia, RefusalNotAllowed)
	}
	if q.PerPage <= 0 || q.PerPage > 100 {
		q.PerPage = 24
	}
	if q.Page <= 0 {
		q.Page = 1
	}
	var list []Media
	sel := s.db.NewSelect().Model(&list)
	if w := strings.TrimSpace(q.Search); w != "" {
		like := "%" + escapeLike(strings.ToLower(w)) + "%"
		sel = sel.Where("(LOWER(name) LIKE ? ESCAPE '!' OR LOWER(title) LIKE ? ESCAPE '!' OR LOWER(alt_text) LIKE ? ESCAPE '!')", like, like, like)
	}
	n, err := sel.OrderExpr("id DESC").Limit(int64(q.PerPage)).Offset(int64((q.Page - 1) * q.PerPage)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	for i := range list {
		if err := s.db.NewSelect().Model(&list[i].Files).Column("media_id", "size", "width", "height", "filesize", "etag").
			Where("media_id = ?", list[i].ID).Scan(ctx); err != nil {
			return nil, 0, mapErr(err)
		}
		sortMediaFiles(list[i].Files)
	}
	return list, int(n), nil
}

func escapeLike(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

var sizeOrder = map[string]int{"full": 0, "thumbnail": 1, "medium": 2, "large": 3}

func sortMediaFiles(f []MediaFile) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && sizeOrder[f[j].Size] < sizeOrder[f[j-1].Size]; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}

// MediaText is a change of an image's texts (nil: unchanged).
type MediaText struct {
	Title, AltText *string
}

// UpdateMedia changes the title and alt text of an image.
func (s *Store) UpdateMedia(ctx context.Context, actor *User, id int64, in MediaText) (*Media, error) {
	if !MayUploadMedia(actor) {
		return nil, refuse(actor, KindMedia, RefusalNotAllowed)
	}
	var c fieldChecks
	c.text("title", in.Title, MaxNameLen)
	c.text("alt_text", in.AltText, 1000)
	if err := c.err(); err != nil {
		return nil, err
	}
	m, err := s.Media(ctx, id)
	if err != nil {
		return nil, err
	}
	if in.Title != nil {
		m.Title = strings.TrimSpace(*in.Title)
	}
	if in.AltText != nil {
		m.AltText = strings.TrimSpace(*in.AltText)
	}
	if _, err := s.db.NewUpdate().Model(m).Column("title", "alt_text").WherePK().Exec(ctx); err != nil {
		return nil, mapErr(err)
	}
	return m, nil
}

// DeleteMedia deletes an image and its files. An image some record shows is
// refused (media.error.in_use, listing the records) unless unlink is set:
// then those records lose their image first, in the same transaction.
func (s *Store) DeleteMedia(ctx context.Context, actor *User, id int64, unlink bool) error {
	if !MayUploadMedia(actor) {
		return refuse(actor, KindMedia, RefusalNotAllowed)
	}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.Media(ctx, id); err != nil {
			return err
		}
		uses, err := tx.MediaUses(ctx, id)
		if err != nil {
			return err
		}
		if len(uses) > 0 && !unlink {
			return Invalid("id", "media.error.in_use", map[string]any{"Count": len(uses)})
		}
		prefix := "/media/" + strconv.FormatInt(id, 10) + "/%"
		for _, table := range []string{"events", "venues", "organizers"} {
			if _, err := tx.db.NewUpdate().TableExpr(table).Set("image_url = ''").Where("image_url LIKE ?", prefix).Exec(ctx); err != nil {
				return mapErr(err)
			}
		}
		if _, err := tx.db.NewDelete().TableExpr("media_files").Where("media_id = ?", id).Exec(ctx); err != nil {
			return mapErr(err)
		}
		_, err = tx.db.NewDelete().TableExpr("media").Where("id = ?", id).Exec(ctx)
		return mapErr(err)
	})
	if err != nil {
		return err
	}
	if s.media.Dir != "" {
		_ = os.RemoveAll(mediaDir(s.media.Dir, id))
	}
	return nil
}
