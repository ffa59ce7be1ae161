package main

import (
	"bytes"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kalends/kalends/internal/imagetest"
)

// TestDatabaseFilesAreOwnerOnly (issue 28, smaller finding 4: the SQLite
// file, which holds password hashes, was created world-readable): with a
// umask of 0, the database, its -wal and -shm, the directory made for it,
// the media directory and its images, a backup and both exports are
// created owner-only (0600 files, 0700 directories), an export written
// over an existing readable file included; a server started on a database
// others can read warns, naming the files and the chmod that fixes it.
// The umask is the process's (and the binaries' it starts): while this
// test runs, the others running beside it create their files under it too,
// with the modes they ask for.
func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	root := t.TempDir()
	data := filepath.Join(root, "data")
	dbPath := filepath.Join(data, "カレンダー.db")
	dsn := "sqlite:" + dbPath
	if r := kalends(t, "migrate", "--db", dsn); r.code != 0 {
		t.Fatalf("migrate: %s", r.stderr)
	}
	if r := kalends(t, "user", "create", "--db", dsn, "--login", "ann", "--password", "ann-account-pw", "--role", "editor"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := kalends(t, "app-password", "create", "--db", dsn, "--login", "ann")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	auth := "Basic " + basic("ann", strings.TrimSpace(r.stdout))
	srv := startServer(t, dsn, "--media-store", "dir", "--publish-interval", "0")
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", "写真.png")
	_, _ = fw.Write(imagetest.PNG(400, 300))
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.url+"/cal/events/v1/media", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", auth)
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	// While the server runs, SQLite keeps its -wal and -shm.
	want := map[string]fs.FileMode{data: 0o700, dbPath: 0o600, dbPath + "-wal": 0o600, dbPath + "-shm": 0o600}
	media := filepath.Join(data, "media")
	err = filepath.WalkDir(media, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			want[p] = 0o700
		} else {
			want[p] = 0o600
		}
		return nil
	})
	if err != nil || len(want) < 8 {
		t.Fatalf("media directory %s: %v (%d entries)", media, err, len(want))
	}
	// A backup and both exports; the ics export goes over a readable file.
	backups := filepath.Join(root, "backups")
	if err := os.Mkdir(backups, 0o755); err != nil { //nolint:gosec // G301: readable on purpose: the backup inside must not be

		t.Fatal(err)
	}
	ics := filepath.Join(root, "site.ics")
	if err := os.WriteFile(ics, []byte("old"), 0o644); err != nil { //nolint:gosec // G306: readable on purpose: the export over it must not be

		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"backup", "--db", dsn, "--to", filepath.Join(backups, "kalends.db")},
		{"export", "--db", dsn, "--to", ics},
		{"export", "--db", dsn, "--media-store", "dir", "--to", filepath.Join(root, "site.json")},
	} {
		if r := kalends(t, args...); r.code != 0 {
			t.Fatalf("%v: %s", args, r.stderr)
		}
		want[args[len(args)-1]] = 0o600
	}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %#o, want %#o", strings.TrimPrefix(p, root), got, mode)
		}
	}
	// A database others can read: the next start warns.
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	if code := srv.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("server exited %d", code)
	}
	if err := os.Chmod(dbPath, 0o644); err != nil { //nolint:gosec // G302: readable on purpose, to be warned about

		t.Fatal(err)
	}
	srv = startServer(t, dsn, "--publish-interval", "0")
	if log := srv.stderr.String(); !strings.Contains(log, "chmod 600 ") || !strings.Contains(log, dbPath) {
		t.Errorf("no warning naming %s and the chmod that fixes it:\n%s", dbPath, log)
	}
}
