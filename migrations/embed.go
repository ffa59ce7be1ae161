// Package migrations holds the SQL schema of Kalends, one directory per
// dialect, embedded into the binary and applied by bun/migrate.
//
// Files are append-only: a released migration is never edited. Each dialect
// has its own sub-FS so that bun/migrate's Discover never merges the two.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql mysql/*.sql
var files embed.FS

// SQLite returns the migrations for the embedded SQLite database.
func SQLite() fs.FS { return sub("sqlite") }

// MySQL returns the migrations for MySQL 8 and MariaDB 10.6+.
func MySQL() fs.FS { return sub("mysql") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directory is embedded at build time; absence is a build bug
	}
	return f
}
