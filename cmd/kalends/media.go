package main

import (
	"path/filepath"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/api"
	"github.com/kalends/kalends/models"
)

// maxMediaBytes bounds --media-max-bytes: uploads are read into memory.
const maxMediaBytes = 256 << 20

// validateMedia checks the media options and fills their defaults.
func (c *Config) validateMedia(bad func(format string, a ...any)) {
	if c.MediaStore == "" {
		c.MediaStore = "dir"
		if strings.HasPrefix(c.DB, "mysql://") {
			c.MediaStore = "db"
		}
	}
	if c.MediaStore != "db" && c.MediaStore != "dir" {
		bad("--media-store %q must be db or dir", c.MediaStore)
	}
	if c.MediaStore == "dir" && c.MediaDir == "" {
		c.MediaDir = "media"
		if path, ok := strings.CutPrefix(c.DB, "sqlite:"); ok && path != "" {
			c.MediaDir = filepath.Join(filepath.Dir(path), "media")
		}
	}
	if c.MediaMaxBytes < 1024 || c.MediaMaxBytes > maxMediaBytes {
		bad("--media-max-bytes must be from 1024 to %d, not %d", maxMediaBytes, c.MediaMaxBytes)
	}
}

// mediaStorage is the store's media setting of the configuration.
func (c *Config) mediaStorage() models.MediaStorage {
	ms := models.MediaStorage{MaxBytes: c.MediaMaxBytes}
	if c.MediaStore == "dir" {
		ms.Dir = c.MediaDir
	}
	return ms
}

// uploadOverhead is what a multipart body may add to the file it carries
// (boundaries, headers, the alt text and title).
const uploadOverhead = 1 << 20

// readLimit is how much of a body the server reads: the API's drain limit,
// or an upload's limit when larger.
func (c *Config) readLimit() int {
	return max(api.DrainLimit, int(c.mediaMax())+uploadOverhead+api.BodyLimit, int(c.importMax())+uploadOverhead)
}

func (c *Config) mediaMax() int64 {
	if c.MediaMaxBytes <= 0 {
		return models.DefaultMediaMaxBytes
	}
	return c.MediaMaxBytes
}

// isUpload tells the requests that carry an image: POST to the API's
// /media (with or without a language prefix) and the admin's upload.
func isUpload(c *fiber.Ctx) bool {
	if c.Method() != fiber.MethodPost {
		return false
	}
	p := strings.TrimSuffix(c.Path(), "/")
	return strings.HasSuffix(p, "/"+api.Namespace+"/media") || p == "/admin/media"
}
