// Package assets holds the static files of the admin (own CSS/JS and the
// vendor files that `npm run build` copies into vendor/), embedded in the
// binary. URLs carry a content hash so the files can be cached for a year.
package assets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
	"sync"
)

//go:embed vendor css js
var files embed.FS

// FS is the embedded file tree (paths like "vendor/htmx.min.js").
var FS fs.FS = files

// Prefix is where the files are served.
const Prefix = "/assets/"

var (
	hashOnce sync.Once
	hashes   map[string]string // path -> first 12 hex digits of its SHA-256
)

func loadHashes() {
	hashes = map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		hashes[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
}

// Hash returns the content hash of the file at name ("" when there is no
// such file).
func Hash(name string) string {
	hashOnce.Do(loadHashes)
	return hashes[strings.TrimPrefix(path.Clean("/"+name), "/")]
}

// URL returns the public URL of the file at name with its content hash as a
// query ("/assets/vendor/htmx.min.js?v=0123abcd4567"), so a new build
// changes every URL and old copies in caches are never used.
func URL(name string) string {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if h := Hash(name); h != "" {
		return Prefix + name + "?v=" + h
	}
	return Prefix + name
}
