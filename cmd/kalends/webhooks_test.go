package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// receiver is a webhook endpoint that answers 500 to its first failFirst
// requests and 200 after, checking each signature with its own verifier
// (written apart from internal/webhook).
type receiver struct {
	t         *testing.T
	secret    string
	failFirst int

	mu       sync.Mutex
	requests int
	badSigs  int
	got      []string // webhook-id of each 2xx answer, in order
	types    map[string]string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, ts, sigs := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature")
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(rc.secret, "whsec_"))
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	ok := false
	for _, s := range strings.Fields(sigs) {
		ok = ok || hmac.Equal([]byte(s), []byte(want))
	}
	var msg struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(body, &msg)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests++
	if !ok {
		rc.badSigs++
	}
	if rc.requests <= rc.failFirst {
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
		return
	}
	rc.got = append(rc.got, id)
	if rc.types == nil {
		rc.types = map[string]string{}
	}
	rc.types[id] = msg.Type
	w.WriteHeader(http.StatusNoContent)
}

// TestWebhooksReachAReceiverThatFailsForAWhile: a receiver answering 500
// for a while and then 2xx gets every change an anonymous reader sees,
// each exactly once after deduplicating by webhook-id, in commit order
// per record, signed; a rolled-back write sends nothing. On both dialects.
func TestWebhooksReachAReceiverThatFailsForAWhile(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := testApp(t, db, io.Discard)
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "boss", Password: "password-boss", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		rc := &receiver{t: t, failFirst: 15}
		srv := httptest.NewServer(rc)
		defer srv.Close()
		rc.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		ep, err := db.AddWebhook(ctx, admin, srv.URL+"/hook", "テスト", nil, rc.secret)
		if err != nil {
			t.Fatal(err)
		}
		str := func(s string) *string { return &s }
		var ids []int64
		for i, title := range []string{"夏祭り", "벚꽃 축제", "Fête de la Musique", "音乐节", "Crème brûlée"} {
			e, err := db.CreateEvent(ctx, admin, models.EventInput{Title: str(title), Lang: "en",
				StartDate: str(fmt.Sprintf("2031-06-%02d 10:00:00", i+1)), EndDate: str(fmt.Sprintf("2031-06-%02d 12:00:00", i+1))})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		for round := range 3 {
			for _, id := range ids {
				if _, err := db.UpdateEvent(ctx, admin, models.ByID(id), models.EventInput{Title: str(fmt.Sprintf("第%d版", round+2))}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := db.TrashEvent(ctx, admin, models.ByID(ids[0]), "en"); err != nil {
			t.Fatal(err)
		}
		rollback := errors.New("roll back")
		if err := db.RunInTx(ctx, func(tx *models.Store) error {
			if _, err := tx.CreateEvent(ctx, admin, models.EventInput{Title: str("Jamais"), Lang: "en",
				StartDate: str("2031-07-01 10:00:00"), EndDate: str("2031-07-01 12:00:00")}); err != nil {
				return err
			}
			return rollback
		}); !errors.Is(err, rollback) {
			t.Fatal(err)
		}
		// What an anonymous reader sees from the endpoint's start.
		feed, err := db.Changes(ctx, nil, ep.FeedPos, false, 500)
		if err != nil {
			t.Fatal(err)
		}
		want := len(feed.Items)

		w := newWebhookWorker(db, app, &Config{WebhookConcurrency: 4, WebhookAllowPrivate: true}, slog.New(slog.DiscardHandler))
		w.tick, w.retryBase, w.retryMax = 10*time.Millisecond, 10*time.Millisecond, 100*time.Millisecond
		wctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		start := time.Now()
		go func() { defer close(done); w.run(wctx) }()
		modelstest.WaitFor(t, 30*time.Second, func() error {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if n := len(rc.got); n < want {
				return fmt.Errorf("%d of %d received", n, want)
			}
			return nil
		})
		drain := time.Since(start)
		// A late duplicate would be a send still in flight: the worker's
		// round waits for each of its sends, so once run has returned
		// every request it made has been answered.
		stop()
		<-done

		rc.mu.Lock()
		defer rc.mu.Unlock()
		var dels []models.WebhookDelivery
		if err := db.IDB().NewSelect().Model(&dels).Where("endpoint_id = ?", ep.ID).OrderExpr("id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		seqOf := map[string]models.WebhookDelivery{}
		for _, d := range dels {
			seqOf[d.MsgID] = d
		}
		seen := map[string]bool{}
		last := map[string]int64{} // per record: the last seq received
		dups := 0
		for _, id := range rc.got {
			if seen[id] {
				dups++
				continue
			}
			seen[id] = true
			d, ok := seqOf[id]
			if !ok {
				t.Errorf("webhook-id %s was never enqueued", id)
				continue
			}
			key := fmt.Sprintf("%s:%d", d.Kind, d.RecordID)
			if d.Seq < last[key] {
				t.Errorf("%s: change %d after %d", key, d.Seq, last[key])
			}
			last[key] = d.Seq
		}
		if len(seen) != want || len(dels) != want || rc.badSigs != 0 {
			t.Errorf("received %d distinct of %d changes (%d enqueued), %d bad signatures", len(seen), want, len(dels), rc.badSigs)
		}
		for _, typ := range rc.types {
			if typ == "" {
				t.Error("a message without a type")
			}
		}
		t.Logf("deliveries %d, attempts %d (retries %d), duplicates %d, drained in %s", len(seen), w.attempt, w.attempt-len(seen), dups, drain.Round(time.Millisecond))
	})
}

// TestWebhooksRefusePrivateAddresses: with the guard on (no
// --webhook-allow-private), an endpoint on 127.0.0.1 and one whose name
// resolves to a loopback address are refused when dialled, and the
// delivery stays pending with the refusal as its answer.
func TestWebhooksRefusePrivateAddresses(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		app := testApp(t, db, io.Discard)
		admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "boss", Password: "password-boss", Role: models.RoleAdministrator})
		if err != nil {
			t.Fatal(err)
		}
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
		defer srv.Close()
		port := srv.URL[strings.LastIndex(srv.URL, ":"):]
		for _, u := range []string{srv.URL, "http://localhost" + port} {
			if _, err := db.AddWebhook(ctx, admin, u+"/hook", "", nil, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"); err != nil {
				t.Fatal(err)
			}
		}
		str := func(s string) *string { return &s }
		if _, err := db.CreateEvent(ctx, admin, models.EventInput{Title: str("Konzert"), Lang: "en",
			StartDate: str("2031-06-01 10:00:00"), EndDate: str("2031-06-01 12:00:00")}); err != nil {
			t.Fatal(err)
		}
		w := newWebhookWorker(db, app, &Config{WebhookConcurrency: 2}, slog.New(slog.DiscardHandler))
		w.round(ctx)
		var dels []models.WebhookDelivery
		if err := db.IDB().NewSelect().Model(&dels).Where("kind = ?", "event").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(dels) != 2 || hits.Load() != 0 {
			t.Fatalf("deliveries %d, hits %d", len(dels), hits.Load())
		}
		for _, d := range dels {
			if d.Status != models.DeliveryPending || d.Attempts != 1 || !strings.Contains(d.LastResponse, "address") {
				t.Errorf("delivery to endpoint %d: %s, %d attempts, %q", d.EndpointID, d.Status, d.Attempts, d.LastResponse)
			}
		}
	})
}

// TestWebhookCommands: kalends webhook add prints the id and the secret
// once, list shows the endpoint (never the secret), remove deletes it;
// an unknown event type is a usage error.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	dsn := modelstest.NewDSN(t, models.SQLite)
	r := kalends(t, "webhook", "add", "--db", dsn, "--events", "event.created,venue.removed", "--description", "パートナーのサイト", "https://partner.example/hooks")
	fields := strings.Fields(r.stdout)
	if r.code != 0 || len(fields) != 2 || !strings.HasPrefix(fields[1], "whsec_") {
		t.Fatalf("add: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = kalends(t, "webhook", "list", "--db", dsn)
	if r.code != 0 || !strings.Contains(r.stdout, "https://partner.example/hooks\tevent.created,venue.removed\tパートナーのサイト") || strings.Contains(r.stdout, "whsec_") {
		t.Errorf("list: %d %q", r.code, r.stdout)
	}
	if r = kalends(t, "webhook", "add", "--db", dsn, "--events", "event.deleted", "https://partner.example/x"); r.code != 2 {
		t.Errorf("unknown type: %d %q", r.code, r.stderr)
	}
	// rotate prints a new secret; the old one stays valid for a day.
	r = kalends(t, "webhook", "rotate", "--db", dsn, fields[0])
	if rotated := strings.TrimSpace(r.stdout); r.code != 0 || !strings.HasPrefix(rotated, "whsec_") || rotated == fields[1] {
		t.Errorf("rotate: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r = kalends(t, "webhook", "rotate", "--db", dsn, "999"); r.code == 0 || r.stderr == "" {
		t.Errorf("rotate a missing endpoint: %d %q", r.code, r.stderr)
	}
	if r = kalends(t, "webhook", "remove", "--db", dsn, fields[0]); r.code != 0 {
		t.Errorf("remove: %d %q", r.code, r.stderr)
	}
	if r = kalends(t, "webhook", "list", "--db", dsn); r.code != 0 || r.stdout != "" {
		t.Errorf("list after remove: %d %q", r.code, r.stdout)
	}
}
