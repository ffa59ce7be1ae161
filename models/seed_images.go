package models

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// seedImageCount is how many library images a seed makes for its events.
const seedImageCount = 6

// seedImages makes seedImageCount library images (gradients, 640×427,
// each its own colours) through CreateMedia, in the author's name, so
// the seeded events that show one exercise the library's sizes.
func (s *Store) seedImages(ctx context.Context, authorID int64) ([]string, error) {
	u := *Console
	u.ID = authorID
	var paths []string
	for i := range seedImageCount {
		img := image.NewRGBA(image.Rect(0, 0, 640, 427))
		for y := range 427 {
			for x := range 640 {
				//nolint:gosec // G115: the channels wrap on purpose, a gradient.
				img.Set(x, y, color.RGBA{uint8(40*i + x/5), uint8(60 + y/3), uint8(200 - 30*i + x/10), 255})
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		m, err := s.CreateMedia(ctx, &u, MediaUpload{FileName: fmt.Sprintf("seed-%d.png", i+1),
			Title: fmt.Sprintf("Seed image %d", i+1), Data: buf.Bytes()})
		if err != nil {
			return nil, fmt.Errorf("models: seed image: %w", err)
		}
		paths = append(paths, m.Path("full"))
	}
	return paths, nil
}
