package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/uptrace/bun"
)

// Media is one image of the media library.
type Media struct {
	bun.BaseModel `bun:"table:media"`

	ID        int64     `bun:"id,pk,autoincrement"`
	AuthorID  int64     `bun:"author_id,notnull"`
	Name      string    `bun:"name,notnull"` // the file name without extension, cleaned
	Ext       string    `bun:"ext,notnull"`
	Mime      string    `bun:"mime,notnull"`
	Width     int       `bun:"width,notnull"`
	Height    int       `bun:"height,notnull"`
	Filesize  int64     `bun:"filesize,notnull"`
	Title     string    `bun:"title,notnull"`
	AltText   string    `bun:"alt_text,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`

	Files []MediaFile `bun:"-"` // "full" first, then the sizes made
	// Translations lists the languages its texts are translated into.
	Translations []string `bun:"-"`
}

// MediaFile is one stored size of an image. Data is nil when the files live
// in the media directory.
type MediaFile struct {
	bun.BaseModel `bun:"table:media_files"`

	MediaID  int64  `bun:"media_id,pk"`
	Size     string `bun:"size,pk"`
	Width    int    `bun:"width,notnull"`
	Height   int    `bun:"height,notnull"`
	Filesize int64  `bun:"filesize,notnull"`
	ETag     string `bun:"etag,notnull"`
	Data     []byte `bun:"data"`
}

// Path is the site path a size is served at: /media/{id}/{size}.{ext}. The
// name never changes for the same bytes, so it may be cached for good.
func (m *Media) Path(size string) string {
	return "/media/" + strconv.FormatInt(m.ID, 10) + "/" + size + "." + m.Ext
}

// File returns the stored size named size, or nil.
func (m *Media) File(size string) *MediaFile {
	for i := range m.Files {
		if m.Files[i].Size == size {
			return &m.Files[i]
		}
	}
	return nil
}

// MediaStorage says where the bytes of the images go: in the database
// (Dir == "") or in files under Dir. MaxBytes is the upload limit.
type MediaStorage struct {
	Dir      string
	MaxBytes int64
}

// UseMedia sets where images are stored (call once, before serving).
func (db *DB) UseMedia(m MediaStorage) { db.media = m }

// MediaStorage returns the storage in use.
func (s *Store) MediaStorage() MediaStorage { return s.media }

// MediaUpload is an uploaded file with its optional texts.
type MediaUpload struct {
	FileName, Title, AltText string
	Data                     []byte
}

// CreateMedia checks and stores an uploaded image (authors, editors and
// administrators may upload, as WordPress's upload_files).
func (s *Store) CreateMedia(ctx context.Context, actor *User, in MediaUpload) (*Media, error) {
	if !MayUploadMedia(actor) {
		return nil, refuse(actor, KindMedia, RefusalNotAllowed)
	}
	in.FileName, in.Title, in.AltText = NFC(in.FileName), NFC(in.Title), NFC(in.AltText)
	c := &fieldChecks{}
	c.text("title", &in.Title, MaxNameLen)
	c.text("alt_text", &in.AltText, 1000)
	if err := c.err(); err != nil {
		return nil, err
	}
	p, err := processImage(in.Data, s.media.MaxBytes)
	if err != nil {
		return nil, err
	}
	m := &Media{AuthorID: actor.ID, Name: mediaName(in.FileName), Ext: p.ext, Mime: p.mime,
		Width: p.files[0].width, Height: p.files[0].height, Filesize: int64(len(p.files[0].data)),
		Title: strings.TrimSpace(in.Title), AltText: strings.TrimSpace(in.AltText), CreatedAt: s.site.Now()}
	if m.Title == "" {
		m.Title = m.Name
	}
	err = s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewInsert().Model(m).Exec(ctx); err != nil {
			return mapErr(err)
		}
		for _, f := range p.files {
			sum := sha256.Sum256(f.data)
			mf := MediaFile{MediaID: m.ID, Size: f.size, Width: f.width, Height: f.height,
				Filesize: int64(len(f.data)), ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}
			if s.media.Dir == "" {
				mf.Data = f.data
			} else if err := writeMediaFile(s.media.Dir, m, f.size, f.data); err != nil {
				return err
			}
			if _, err := tx.db.NewInsert().Model(&mf).Exec(ctx); err != nil {
				return mapErr(err)
			}
			mf.Data = nil
			m.Files = append(m.Files, mf)
		}
		return nil
	})
	if err != nil {
		if s.media.Dir != "" && m.ID != 0 {
			_ = os.RemoveAll(mediaDir(s.media.Dir, m.ID))
		}
		return nil, err
	}
	return m, nil
}

func mediaDir(root string, id int64) string { return filepath.Join(root, strconv.FormatInt(id, 10)) }

func writeMediaFile(root string, m *Media, size string, data []byte) error {
	dir := mediaDir(root, m.ID)
	if err := MkdirPrivate(dir); err != nil {
		return fmt.Errorf("models: media dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return fmt.Errorf("models: media file: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("models: media file: %w", errors.Join(werr, cerr))
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, size+"."+m.Ext))
}

// mediaName keeps letters, digits, '-' and '_' of a file name without its
// extension ("image" when nothing is left).
func mediaName(fileName string) string {
	base := filepath.Base(strings.ReplaceAll(fileName, `\`, "/"))
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '.':
			b.WriteRune('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if r := []rune(name); len(r) > 100 {
		name = string(r[:100])
	}
	if name == "" {
		name = "image"
	}
	return name
}

// Media returns an image with its sizes (without their bytes).
func (s *Store) Media(ctx context.Context, id int64) (*Media, error) {
	m := new(Media)
	if err := s.db.NewSelect().Model(m).Where("id = ?", id).Scan(ctx); err != nil {
		if err = mapErr(err); errors.Is(err, ErrNotFound) {
			return nil, &NotFoundError{Kind: KindMedia, Ref: Ref{ID: id}}
		}
		return nil, err
	}
	if err := s.db.NewSelect().Model(&m.Files).Column("media_id", "size", "width", "height", "filesize", "etag").
		Where("media_id = ?", id).Scan(ctx); err != nil {
		return nil, mapErr(err)
	}
	sortMediaFiles(m.Files)
	return m, nil
}

// MediaFileData returns the bytes of one size of an image with its record.
func (s *Store) MediaFileData(ctx context.Context, id int64, size string) (*Media, *MediaFile, []byte, error) {
	m, err := s.Media(ctx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	f := m.File(size)
	if f == nil {
		return nil, nil, nil, ErrNotFound
	}
	if s.media.Dir != "" {
		//nolint:gosec // G304: the path is the media dir, a numeric id, and a size name and extension read from the database.
		data, err := os.ReadFile(filepath.Join(mediaDir(s.media.Dir, id), size+"."+m.Ext))
		if err != nil {
			return nil, nil, nil, errors.Join(ErrNotFound, err)
		}
		return m, f, data, nil
	}
	var row MediaFile
	if err := s.db.NewSelect().Model(&row).Where("media_id = ? AND size = ?", id, size).Scan(ctx); err != nil {
		return nil, nil, nil, mapErr(err)
	}
	return m, f, row.Data, nil
}
