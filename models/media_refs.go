package models

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// An `image` sent on an event, venue or organizer is an absolute http(s)
// URL (stored as sent) or the id of an image of the media library. An id is
// stored as the site path of the image's full size (/media/{id}/full.{ext}):
// image_url stays a URL every reader can use, and MediaIDOf finds the image
// again to show its sizes.

var mediaPathRE = regexp.MustCompile(`^/media/([1-9][0-9]{0,18})/full\.[a-z]+$`)

// MediaIDOf returns the id of the library image an image_url names, or 0.
func MediaIDOf(imageURL string) int64 {
	m := mediaPathRE.FindStringSubmatch(imageURL)
	if m == nil {
		return 0
	}
	id, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// mediaRef parses an image value that is an id ("12"), or returns 0.
func mediaRef(v *string) int64 {
	if v == nil {
		return 0
	}
	s := strings.TrimSpace(*v)
	if s == "" || s[0] < '1' || s[0] > '9' || len(s) > 18 {
		return 0
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// image checks an optional image field: "", an absolute URL or an id.
func (c *fieldChecks) image(field string, v *string, reason string) {
	if mediaRef(v) != 0 || (v != nil && MediaIDOf(*v) != 0) {
		return
	}
	c.url(field, v, reason)
}

// resolveImage turns an image id into the path of the image, or refuses an
// id that names no image (400, on the field).
func (s *Store) resolveImage(ctx context.Context, v *string) error {
	id := mediaRef(v)
	if id == 0 && v != nil {
		id = MediaIDOf(*v)
	}
	if id == 0 {
		return nil
	}
	m := new(Media)
	err := s.db.NewSelect().Model(m).Column("id", "ext").Where("id = ?", id).Scan(ctx)
	if err = mapErr(err); errors.Is(err, ErrNotFound) {
		return Invalid("image", "media.error.unknown_image", map[string]any{"ID": id})
	} else if err != nil {
		return err
	}
	*v = m.Path("full")
	return nil
}
