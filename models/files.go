package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The SQLite database holds password hashes, and backups, exports and the
// media directory hold drafts: every file Kalends writes is its owner's
// alone, whatever the umask (issue 28). SQLite gives its -wal, -shm and
// -journal files the mode of the database file, so a database created
// owner-only keeps its companions so too.
const (
	// PrivateFileMode is the mode of every file Kalends creates.
	PrivateFileMode fs.FileMode = 0o600
	// PrivateDirMode is the mode of every directory Kalends creates.
	PrivateDirMode fs.FileMode = 0o700
)

// MkdirPrivate creates dir and its missing parents with PrivateDirMode
// (set outright, so the umask cannot widen or narrow it). Directories that
// exist are left as they are: they may be the operator's (/var/lib).
func MkdirPrivate(dir string) error {
	if dir == "" || dir == "." {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("models: %s is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := MkdirPrivate(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, PrivateDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("models: create directory: %w", err)
	}
	if err := os.Chmod(dir, PrivateDirMode); err != nil {
		return fmt.Errorf("models: create directory: %w", err)
	}
	return nil
}

// CreatePrivate creates (or truncates) the file at path for writing with
// PrivateFileMode; an existing file is made owner-only too, since writing
// into it keeps its mode.
func CreatePrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, PrivateFileMode) //nolint:gosec // G304: the operator names the file.
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(PrivateFileMode); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// WritePrivate writes data to the file at path, owner-only.
func WritePrivate(path string, data []byte) error {
	f, err := CreatePrivate(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ensurePrivateDB creates the SQLite file at path, empty and owner-only,
// when it does not exist yet, so SQLite (which would create it 0644 less
// the umask) opens ours and gives its -wal and -shm the same mode.
func ensurePrivateDB(path string) error {
	if err := MkdirPrivate(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, PrivateFileMode) //nolint:gosec // G304: the operator names the database.
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = f.Chmod(PrivateFileMode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadableByOthers lists the files of the SQLite database at path (the
// database, its -wal and -shm) that users other than the owner may read
// or write, for the warning serve gives at start.
func ReadableByOthers(path string) []string {
	var out []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		fi, err := os.Stat(path + suffix)
		if err == nil && fi.Mode().Perm()&0o077 != 0 {
			out = append(out, path+suffix)
		}
	}
	return out
}
