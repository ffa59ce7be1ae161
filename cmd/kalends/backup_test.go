package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestBackupUnderWriteLoadRestores: a backup taken while two clients keep
// creating events through the API restores to a database that passes the
// integrity check and holds every event whose 201 came before the backup
// began. A restore onto a database a server runs on is refused; onto a
// stopped one it keeps the old file beside it. MySQL is sent to its own
// tools.
func TestBackupUnderWriteLoadRestores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "live.db")
	s := startServer(t, db, "--admin-login", "boss", "--admin-password", "boss-password-1", "--write-limit", "0")
	r := kalends(t, "app-password", "create", "--db", db, "--login", "boss", "--name", "writer")
	if r.code != 0 {
		t.Fatalf("app-password: %s", r.stderr)
	}
	auth := "Basic " + basic("boss", strings.TrimSpace(r.stdout))

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				title := fmt.Sprintf("write %d-%d", w, i)
				body := fmt.Sprintf(`{"title":%q,"start_date":"2031-01-02 10:00","end_date":"2031-01-02 11:00","status":"publish"}`, title)
				req, _ := http.NewRequest(http.MethodPost, s.url+"/cal/events/v1/events", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", auth)
				res, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(res.Body)
				_ = res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					errs <- fmt.Errorf("create %s: %d %s", title, res.StatusCode, b)
					return
				}
				mu.Lock()
				acked = append(acked, title)
				mu.Unlock()
			}
		}()
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	modelstest.WaitFor(t, 60*time.Second, func() error {
		if n := count(); n < 40 {
			return fmt.Errorf("%d writes acknowledged", n)
		}
		return nil
	})
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	backup := filepath.Join(dir, "backup.db")
	if r := kalends(t, "backup", "--db", db, "--to", backup); r.code != 0 || !strings.Contains(r.stdout, "checked") {
		t.Fatalf("backup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	n := count()
	modelstest.WaitFor(t, 60*time.Second, func() error { // writes went on during and after the backup
		if count() < n+10 {
			return fmt.Errorf("%d writes after the backup", count()-n)
		}
		return nil
	})
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("a writer failed: %v", err)
	default:
	}

	// Restoring onto the live database is refused while its server runs.
	if r := kalends(t, "restore", "--db", db, backup); r.code != 1 || !strings.Contains(r.stderr, "server is running") {
		t.Errorf("restore onto a served database: exit %d %s", r.code, r.stderr)
	}
	restored := filepath.Join(dir, "restored.db")
	if r := kalends(t, "restore", "--db", "sqlite:"+restored, backup); r.code != 0 || !strings.Contains(r.stdout, "restored ") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ctx := context.Background()
	if err := models.CheckSQLiteFile(ctx, restored); err != nil {
		t.Fatal(err)
	}
	rdb, err := models.Open(ctx, "sqlite:"+restored)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	if err := rdb.IDB().NewSelect().TableExpr("events").Column("title").Scan(ctx, &titles); err != nil {
		t.Fatal(err)
	}
	_ = rdb.Close()
	have := map[string]bool{}
	for _, ti := range titles {
		have[ti] = true
	}
	for _, ti := range before {
		if !have[ti] {
			t.Errorf("%q was acknowledged before the backup began but is not in it", ti)
		}
	}
	if len(titles) < len(before) || len(titles) > count() {
		t.Errorf("the backup holds %d events: %d were acknowledged before it began, %d in all", len(titles), len(before), count())
	}

	// Onto a stopped database: the old file is kept beside the new one.
	if r := kalends(t, "restore", "--db", "sqlite:"+restored, backup); r.code != 0 || !strings.Contains(r.stdout, "kept as "+restored+".before-restore-") {
		t.Errorf("restore over a database: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A file that is not a database, a damaged one, and MySQL.
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kalends(t, "restore", "--db", "sqlite:"+filepath.Join(dir, "x.db"), junk); r.code != 1 || !strings.Contains(r.stderr, "cannot be restored") {
		t.Errorf("restore of junk: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Error("a refused restore left a database behind")
	}
	damaged := filepath.Join(dir, "damaged.db")
	b, err := os.ReadFile(backup) //nolint:gosec // G304: this test's file.
	if err != nil {
		t.Fatal(err)
	}
	for i := 8192; i+64 < len(b); i += 4096 { // scribble over a line of every page but the first two
		copy(b[i+100:i+164], strings.Repeat("x", 64))
	}
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kalends(t, "restore", "--db", "sqlite:"+filepath.Join(dir, "y.db"), damaged); r.code != 1 || !strings.Contains(r.stderr, "cannot be restored") {
		t.Errorf("restore of a damaged file: exit %d %s", r.code, r.stderr)
	}
	if r := kalends(t, "backup", "--db", "mysql://u:p@127.0.0.1:1/k", "--to", filepath.Join(dir, "m.db")); r.code != 2 || !strings.Contains(r.stderr, "mysqldump") {
		t.Errorf("backup of MySQL: exit %d %s", r.code, r.stderr)
	}
}
