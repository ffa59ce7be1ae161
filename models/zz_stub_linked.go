package models

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// Temporary stubs of the slug helpers the terms branch writes in slugs.go;
// deleted when they land on main.

// Slugify is a stub.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// InsertWithUniqueSlug is a stub.
func (s *Store) InsertWithUniqueSlug(ctx context.Context, k Kind, base string, parentID int64, insert func(slug string) error) (string, error) {
	if base == "" {
		base = string(k)
	}
	for i := 1; i < 1000; i++ {
		slug := base
		if i > 1 {
			slug = base + "-" + strconv.Itoa(i)
		}
		err := insert(slug)
		if err == nil {
			return slug, nil
		}
		if !errors.Is(err, ErrConflict) {
			return "", err
		}
	}
	return "", ErrConflict
}
