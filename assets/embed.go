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
	"regexp"
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

// URL returns the public URL of the file at name with its content hash in
// the file name ("/assets/vendor/htmx.min.0123abcd4567.js"), so a new build
// changes every URL and old copies in caches are never used.
func URL(name string) string {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if h := Hash(name); h != "" {
		ext := path.Ext(name)
		return Prefix + strings.TrimSuffix(name, ext) + "." + h + ext
	}
	return Prefix + name
}

// hashedName matches a file name carrying a content hash before its
// extension, as URL writes it.
var hashedName = regexp.MustCompile(`^(.+)\.([0-9a-f]{12})(\.[A-Za-z0-9]+)$`)

// Unhash splits a requested path into the file's name and the hash its URL
// carries ("" when it carries none).
func Unhash(p string) (name, hash string) {
	if m := hashedName.FindStringSubmatch(p); m != nil {
		return m[1] + m[3], m[2]
	}
	return p, ""
}
