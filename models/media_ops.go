package models

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/uptrace/bun"
)

// MediaQuery narrows the media list: a search in name, title and alt text,
// and a page (1-based) of PerPage images, newest first.
type MediaQuery struct {
	Search        string
	Page, PerPage int
	Lang          string // the language of the texts (see MediaIn)
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
		like := "%" + EscapeLike(strings.ToLower(NFC(w))) + "%" // texts are stored composed
		sel = sel.Where("(LOWER(name) LIKE ? ESCAPE '!' OR LOWER(title) LIKE ? ESCAPE '!' OR LOWER(alt_text) LIKE ? ESCAPE '!'"+
			" OR EXISTS (SELECT 1 FROM media_translations mt WHERE mt.media_id = media.id AND"+
			" (LOWER(mt.title) LIKE ? ESCAPE '!' OR LOWER(mt.alt_text) LIKE ? ESCAPE '!')))", like, like, like, like, like)
	}
	n, err := sel.OrderExpr("id DESC").Limit(int64(q.PerPage)).Offset(int64((q.Page - 1) * q.PerPage)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	if err := s.translateMedia(ctx, list, q.Lang); err != nil {
		return nil, 0, err
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

var sizeOrder = map[string]int{"full": 0, "thumbnail": 1, "medium": 2, "large": 3}

func sortMediaFiles(f []MediaFile) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && sizeOrder[f[j].Size] < sizeOrder[f[j-1].Size]; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}

// MediaText is a change of an image's texts (nil: unchanged). Lang, when
// set, is the language of a translation to write (an empty text there
// falls back to the image's own); "" writes the image's own texts, those
// of the site's language.
type MediaText struct {
	Title, AltText *string
	Lang           string
}

// UpdateMedia changes the title and alt text of an image.
func (s *Store) UpdateMedia(ctx context.Context, actor *User, id int64, in MediaText) (*Media, error) {
	if !MayUploadMedia(actor) {
		return nil, refuse(actor, KindMedia, RefusalNotAllowed)
	}
	nfcFields(&in.Title, &in.AltText)
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
	if !MayChangeMedia(actor, m) {
		return nil, refuse(actor, KindMedia, RefusalNotAllowed)
	}
	if in.Lang != "" {
		fields := map[string]string{}
		if in.Title != nil {
			fields["title"] = strings.TrimSpace(*in.Title)
		}
		if in.AltText != nil {
			fields["alt_text"] = strings.TrimSpace(*in.AltText)
		}
		if err := s.saveTranslation(ctx, KindMedia, id, in.Lang, fields); err != nil {
			return nil, err
		}
		return s.MediaIn(ctx, id, in.Lang)
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
	return s.MediaIn(ctx, id, in.Lang)
}

// MediaIn is Media with its texts in lang (each falling back to the
// image's own) and the languages it is translated into.
func (s *Store) MediaIn(ctx context.Context, id int64, lang string) (*Media, error) {
	m, err := s.Media(ctx, id)
	if err != nil {
		return nil, err
	}
	list := []Media{*m}
	if err := s.translateMedia(ctx, list, lang); err != nil {
		return nil, err
	}
	return &list[0], nil
}

// translateMedia lays the lang texts over the images (one query) and sets
// the languages each is translated into.
func (s *Store) translateMedia(ctx context.Context, list []Media, lang string) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	var rows []struct {
		MediaID int64   `bun:"media_id"`
		Lang    string  `bun:"lang"`
		Title   *string `bun:"title"`
		AltText *string `bun:"alt_text"`
	}
	if err := s.db.NewSelect().TableExpr("media_translations").Column("media_id", "lang", "title", "alt_text").
		Where("media_id IN (?)", bun.List(ids)).Where("title IS NOT NULL OR alt_text IS NOT NULL").OrderExpr("lang").Scan(ctx, &rows); err != nil {
		return fmt.Errorf("models: media translations: %w", mapErr(err))
	}
	at := map[int64]int{}
	for i := range list {
		at[list[i].ID] = i
	}
	for _, r := range rows {
		m := &list[at[r.MediaID]]
		m.Translations = append(m.Translations, r.Lang)
		if r.Lang != lang || lang == "" || lang == s.site.DefaultLanguage {
			continue
		}
		if r.Title != nil {
			m.Title = *r.Title
		}
		if r.AltText != nil {
			m.AltText = *r.AltText
		}
	}
	return nil
}

// DeleteMedia deletes an image and its files. An image some record shows is
// refused (media.error.in_use, with how many) unless unlink is set: then
// each of those records loses the image first, through its own update (a
// revision, modified and modified_by), in the same transaction. That needs
// edit permission on every one of them, checked before anything changes:
// a refusal (RefusalUsesNotEditable) counts the records in the way.
func (s *Store) DeleteMedia(ctx context.Context, actor *User, id int64, unlink bool) error {
	if !MayUploadMedia(actor) {
		return refuse(actor, KindMedia, RefusalNotAllowed)
	}
	err := s.RunInTx(ctx, func(tx *Store) error {
		m, err := tx.Media(ctx, id)
		if err != nil {
			return err
		}
		if !MayChangeMedia(actor, m) {
			return refuse(actor, KindMedia, RefusalNotAllowed)
		}
		// The site's logo is not a record's image: unlinking it would
		// change the settings, which only administrators edit there.
		if logo, err := tx.settingsUseMedia(ctx, id); err != nil || logo {
			return cmp.Or(err, error(Invalid("id", "settings.error.logo_in_use", nil)))
		}
		uses, err := tx.MediaUses(ctx, actor, id)
		if err != nil {
			return err
		}
		if n := uses.Total(); n > 0 && !unlink {
			return Invalid("id", "media.error.in_use", map[string]any{"Count": n})
		}
		if uses.NotEditable > 0 {
			fe := refuse(actor, KindMedia, RefusalUsesNotEditable)
			fe.Data = map[string]any{"Count": uses.NotEditable}
			return fe
		}
		if err := tx.unlinkMedia(ctx, actor, id); err != nil {
			return err
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

// MediaTranslation is the lang translation of an image's texts as stored:
// nil where the field is not translated.
func (s *Store) MediaTranslation(ctx context.Context, id int64, lang string) (title, alt *string, err error) {
	var rows []struct {
		Title   *string `bun:"title"`
		AltText *string `bun:"alt_text"`
	}
	if err := s.db.NewSelect().TableExpr("media_translations").Column("title", "alt_text").
		Where("media_id = ? AND lang = ?", id, lang).Scan(ctx, &rows); err != nil {
		return nil, nil, fmt.Errorf("models: media translation: %w", mapErr(err))
	}
	if len(rows) == 0 {
		return nil, nil, nil
	}
	return rows[0].Title, rows[0].AltText, nil
}
