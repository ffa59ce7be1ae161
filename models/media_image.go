package models

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp" // registers the WebP decoder for image.DecodeConfig
)

// Limits of an uploaded image, checked from its header before it is decoded
// (a small file may declare a huge picture: a decompression bomb).
const (
	MediaMaxPixels = 40_000_000
	MediaMaxSide   = 10_000
	// DefaultMediaMaxBytes is the default upload limit (--media-max-bytes).
	DefaultMediaMaxBytes = 10 << 20
)

// MediaSize is one generated size of an image: a crop (thumbnail) or a fit
// inside a box (medium, large). "full" is the re-encoded original.
type MediaSize struct {
	Name          string
	Width, Height int
	Crop          bool
}

// MediaSizes are the sizes generated for every upload, as WordPress names them.
var MediaSizes = []MediaSize{
	{"thumbnail", 150, 150, true},
	{"medium", 300, 300, false},
	{"large", 1024, 1024, false},
}

// processedImage is an upload turned into the files the library keeps.
type processedImage struct {
	mime, ext string
	files     []processedFile // "full" first
}

type processedFile struct {
	size          string
	width, height int
	data          []byte
}

// sniffedTypes maps the content types recognized from the bytes (never the
// file name or the declared type) to the stored format. JPEG stays JPEG and
// PNG stays PNG; GIF (first frame) and WebP become PNG, which keeps
// transparency and needs no encoder outside the standard library.
var sniffedTypes = map[string]struct{ mime, ext string }{
	"image/jpeg": {"image/jpeg", "jpg"},
	"image/png":  {"image/png", "png"},
	"image/gif":  {"image/png", "png"},
	"image/webp": {"image/png", "png"},
}

func mediaInvalid(reason string, data map[string]any) error {
	return &ValidationError{Fields: []FieldError{{Field: "file", Code: "rest_invalid_param", Reason: reason, Data: data}}}
}

// processImage checks an upload and makes its files: the original
// re-encoded (turned by its EXIF orientation; EXIF, GPS and every other
// metadata dropped, since only pixels are written) and the sizes.
func processImage(data []byte, maxBytes int64) (*processedImage, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMediaMaxBytes
	}
	if int64(len(data)) > maxBytes {
		return nil, mediaInvalid("media.error.too_large", map[string]any{"Max": maxBytes})
	}
	if len(data) == 0 {
		return nil, mediaInvalid("media.error.empty", nil)
	}
	out, ok := sniffedTypes[http.DetectContentType(data)]
	if !ok {
		return nil, mediaInvalid("media.error.not_image", nil)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, mediaInvalid("media.error.not_image", nil)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MediaMaxSide || cfg.Height > MediaMaxSide ||
		int64(cfg.Width)*int64(cfg.Height) > MediaMaxPixels {
		return nil, mediaInvalid("media.error.too_many_pixels",
			map[string]any{"Width": cfg.Width, "Height": cfg.Height, "MaxSide": MediaMaxSide, "MaxMegapixels": MediaMaxPixels / 1_000_000})
	}
	img, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return nil, mediaInvalid("media.error.not_image", nil)
	}
	p := &processedImage{mime: out.mime, ext: out.ext}
	full, err := encodeImage(img, out.mime)
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	p.files = append(p.files, processedFile{"full", b.Dx(), b.Dy(), full})
	for _, s := range MediaSizes {
		var r image.Image
		switch {
		case s.Crop:
			r = imaging.Fill(img, s.Width, s.Height, imaging.Center, imaging.Lanczos)
		case b.Dx() <= s.Width && b.Dy() <= s.Height:
			continue // WordPress makes no size as large as the original or larger
		default:
			r = imaging.Fit(img, s.Width, s.Height, imaging.Lanczos)
		}
		enc, err := encodeImage(r, out.mime)
		if err != nil {
			return nil, err
		}
		rb := r.Bounds()
		p.files = append(p.files, processedFile{s.Name, rb.Dx(), rb.Dy(), enc})
	}
	return p, nil
}

func encodeImage(img image.Image, mime string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch mime {
	case "image/jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	default:
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("models: encode image: %w", err)
	}
	return buf.Bytes(), nil
}

var _ = gif.Decode // GIF decoding is registered by image/gif
