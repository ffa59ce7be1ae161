package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Issue 34, item 4, against the real binary: a server killed with
// SIGKILL in the middle of deliveries loses none once restarted, and two
// instances on one MariaDB deliver each change once.

// countingReceiver answers 204 to every webhook and counts the requests
// by webhook-id.
type countingReceiver struct {
	mu       sync.Mutex
	requests int
	byID     map[string]int
}

func (rc *countingReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	rc.requests++
	if rc.byID == nil {
		rc.byID = map[string]int{}
	}
	rc.byID[id]++
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// counts returns the requests and the distinct webhook-ids received.
func (rc *countingReceiver) counts() (requests, distinct int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.requests, len(rc.byID)
}

// webhookSite opens dsn, migrated, with an administrator and an endpoint
// on a receiver; it returns the database, the administrator and the
// endpoint.
func webhookSite(t *testing.T, dsn string, rc *countingReceiver) (*models.DB, *models.User, *models.WebhookEndpoint) {
	t.Helper()
	ctx := context.Background()
	db, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "hooks", Password: "password-hooks", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	ep, err := db.AddWebhook(ctx, admin, srv.URL+"/フック", "受信テスト", nil, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	return db, admin, ep
}

// writeEvents creates n published events (CJK and accented titles) and
// returns their ids.
func writeEvents(t *testing.T, db *models.DB, admin *models.User, from, n int) []int64 {
	t.Helper()
	titles := []string{"夏祭り", "벚꽃 축제", "Fête de la Musique", "音乐节", "Crème brûlée"}
	ids := make([]int64, 0, n)
	for i := from; i < from+n; i++ {
		title, start, end, st := fmt.Sprintf("%s %d", titles[i%len(titles)], i), fmt.Sprintf("2031-07-%02d 10:00:00", 1+i%28),
			fmt.Sprintf("2031-07-%02d 12:00:00", 1+i%28), models.StatusPublish
		e, err := db.CreateEvent(context.Background(), admin, models.EventInput{Title: &title, StartDate: &start, EndDate: &end, Lang: "en",
			PostInput: models.PostInput{Status: &st}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// checkEveryChangeArrived: every change an anonymous reader sees after
// the endpoint's start was enqueued once and reached the receiver at
// least once. It returns the deliveries, the attempts and the
// duplicates.
func checkEveryChangeArrived(t *testing.T, db *models.DB, ep *models.WebhookEndpoint, rc *countingReceiver) (deliveries, attempts, dups int) {
	t.Helper()
	ctx := context.Background()
	feed, err := db.Changes(ctx, nil, ep.FeedPos, false, 500)
	if err != nil {
		t.Fatal(err)
	}
	var dels []models.WebhookDelivery
	if err := db.IDB().NewSelect().Model(&dels).Where("endpoint_id = ?", ep.ID).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	bySeq := map[int64]int{}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, d := range dels {
		bySeq[d.Seq]++
		attempts += d.Attempts
		if rc.byID[d.MsgID] == 0 {
			t.Errorf("delivery %s (change %d, %s %s %d) never arrived", d.MsgID, d.Seq, d.Status, d.Kind, d.RecordID)
		}
		dups += max(rc.byID[d.MsgID]-1, 0)
	}
	for _, c := range feed.Items {
		if bySeq[c.Seq] != 1 {
			t.Errorf("change %d (%s %d %s): %d deliveries", c.Seq, c.Kind, c.ID, c.Action, bySeq[c.Seq])
		}
	}
	if len(dels) != len(feed.Items) || len(rc.byID) != len(dels) {
		t.Errorf("%d changes, %d deliveries, %d distinct webhook-ids received", len(feed.Items), len(dels), len(rc.byID))
	}
	return len(dels), attempts, dups
}

// TestWebhooksSurviveSIGKILL: the server is killed with SIGKILL while it
// delivers, changes are written while it is down, and once restarted
// every change reaches the receiver at least once.
func TestWebhooksSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	dsn := modelstest.NewDSN(t, models.SQLite)
	rc := &countingReceiver{}
	db, admin, ep := webhookSite(t, dsn, rc)
	ids := writeEvents(t, db, admin, 0, 150)
	args := []string{"--webhook-allow-private", "true", "--webhook-lease", "2s", "--webhook-concurrency", "2"}
	s := startServer(t, dsn, args...)
	modelstest.WaitFor(t, 30*time.Second, func() error {
		if _, n := rc.counts(); n < 20 {
			return fmt.Errorf("%d received", n)
		}
		return nil
	})
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	_, before := rc.counts()
	// Written while the server is down.
	for _, id := range ids[:30] {
		title := fmt.Sprintf("更新 %d", id)
		if _, err := db.UpdateEvent(context.Background(), admin, models.ByID(id), models.EventInput{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	feed, err := db.Changes(context.Background(), nil, ep.FeedPos, false, 500)
	if err != nil {
		t.Fatal(err)
	}
	if before >= len(feed.Items) {
		t.Fatalf("every delivery (%d) arrived before the kill: nothing was in the middle", before)
	}
	start := time.Now()
	startServer(t, dsn, args...)
	modelstest.WaitFor(t, 30*time.Second, func() error {
		if _, n := rc.counts(); n < len(feed.Items) {
			return fmt.Errorf("%d of %d received", n, len(feed.Items))
		}
		return nil
	})
	drain := time.Since(start)
	dels, attempts, dups := checkEveryChangeArrived(t, db, ep, rc)
	t.Logf("killed after %d of %d deliveries; after the restart: deliveries %d, attempts %d (retries %d), duplicates %d, drained in %s",
		before, len(feed.Items), dels, attempts, attempts-dels, dups, drain.Round(time.Millisecond))
}

// TestWebhooksTwoInstancesDeliverOnce: two servers on one MariaDB, changes
// written while both run; each change reaches the receiver once (it never
// fails, so there is no retry).
func TestWebhooksTwoInstancesDeliverOnce(t *testing.T) {
	t.Parallel()
	dsn := modelstest.NewDSN(t, models.MySQL)
	rc := &countingReceiver{}
	db, admin, ep := webhookSite(t, dsn, rc)
	args := []string{"--webhook-allow-private", "true"}
	servers := []*server{startServer(t, dsn, args...), startServer(t, dsn, args...)}
	start := time.Now()
	ids := writeEvents(t, db, admin, 0, 100)
	for _, id := range ids[:50] {
		title := fmt.Sprintf("更新 %d", id)
		if _, err := db.UpdateEvent(context.Background(), admin, models.ByID(id), models.EventInput{Title: &title}); err != nil {
			t.Fatal(err)
		}
	}
	feed, err := db.Changes(context.Background(), nil, ep.FeedPos, false, 500)
	if err != nil {
		t.Fatal(err)
	}
	modelstest.WaitFor(t, 30*time.Second, func() error {
		if _, n := rc.counts(); n < len(feed.Items) {
			return fmt.Errorf("%d of %d received", n, len(feed.Items))
		}
		return nil
	})
	drain := time.Since(start)
	// A late duplicate from the other instance would be a send in flight:
	// stopped with SIGTERM, each server ends its worker's round (every send
	// of it answered and recorded) before it exits.
	for _, s := range servers {
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range servers {
		if code := s.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("server exit %d after SIGTERM\n%s", code, s.stderr.String())
		}
	}
	dels, attempts, dups := checkEveryChangeArrived(t, db, ep, rc)
	if dups != 0 || attempts != dels {
		t.Errorf("%d duplicates, %d attempts for %d deliveries", dups, attempts, dels)
	}
	t.Logf("two instances: deliveries %d, attempts %d (retries %d), duplicates %d, drained in %s (from the first write)",
		dels, attempts, attempts-dels, dups, drain.Round(time.Millisecond))
}
