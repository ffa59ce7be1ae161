package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestAnInstanceNeverCachesAnAnswerOlderThanItsGeneration: a write made
// elsewhere (another instance; here the store directly) reaches this
// instance's cached answers once it reads the new generation, and no answer
// may be stored under the new generation while it was built from data of
// the old one. Each cache of an instance once read the generation on its
// own (answers, parts, the site's identity): an answer could be stored
// under the new generation with a part or the site's name read under the
// old one, and stayed stale until the next write (a full run saw the
// site's name stay old for 30 s). Many rounds: requests run while a write
// commits, with the generation read every 20 ms so that the caches' reads
// interleave with it; then, with no write after it, the answers must show
// it. With the parts cache on a Watch of its own the API's list kept an old
// title (3 runs of 3 failed), with the identity on its own the public list
// kept an old name (3 of 4).
func TestAnInstanceNeverCachesAnAnswerOlderThanItsGeneration(t *testing.T) {
	t.Parallel()
	db := modelstest.Open(t, models.SQLite)
	ctx := context.Background()
	app := identityApp(t, db, func(c *Config) { c.CacheCheck = 20 * time.Millisecond })
	admin, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "root", Password: "password-root", Role: models.RoleAdministrator})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) *string { return &v }
	day := time.Now().UTC().AddDate(0, 1, 0).Format("2006-01-02") // in the API's default window
	in := models.EventInput{Title: s("朝市 0"), StartDate: s(day + " 09:00"), EndDate: s(day + " 12:00"), Lang: "ja"}
	in.Status = s(models.StatusPublish)
	e, err := db.CreateEvent(ctx, admin, in)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (string, error) {
		res, body, err := send(app, httptest.NewRequest(http.MethodGet, path, nil))
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %d", path, res.StatusCode)
		}
		return body, err
	}
	// The paths to the name and the title: a public page, the API's list
	// (from parts) and the feed, each cached whole.
	paths := []string{"/ja/events/", "/cal/events/v1/events?ml_language=ja", "/ja/events.ics"}
	langs := []string{"en", "ja", "ko", "zh-Hans"}
	const rounds = 60
	for i := 1; i <= rounds; i++ {
		// Requests run while the write commits.
		var served atomic.Int64
		stop, done := make(chan struct{}), make(chan error, 1)
		go func() {
			for {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				for _, p := range paths {
					if _, err := get(p); err != nil {
						done <- err
						return
					}
				}
				served.Add(1)
			}
		}()
		name := fmt.Sprintf("川辺のカレンダー %d", i)
		if _, err := db.SaveSettings(ctx, admin, models.SettingsInput{Names: map[string]string{"ja": name, "en": "Riverside"}}, langs); err != nil {
			t.Fatal(err)
		}
		title := fmt.Sprintf("朝市 %d", i)
		if _, err := db.UpdateEvent(ctx, admin, models.ByID(e.ID), models.EventInput{Title: s(title), Lang: "ja"}); err != nil {
			t.Fatal(err)
		}
		after := served.Load()
		modelstest.WaitFor(t, 10*time.Second, func() error {
			if served.Load() < after+3 {
				return errors.New("the requests made after the write have not been served")
			}
			return nil
		})
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// No write follows: a stale answer stored under the new
		// generation would stay.
		modelstest.WaitFor(t, 5*time.Second, func() error {
			b, err := get("/ja/events/")
			if err != nil {
				return err
			}
			if !strings.Contains(b, "· "+name+"</title>") {
				return fmt.Errorf("round %d: the public list still shows an older site name", i)
			}
			if b, err = get("/cal/events/v1/events?ml_language=ja"); err != nil {
				return err
			}
			if !strings.Contains(b, `"title":"`+title+`"`) {
				return fmt.Errorf("round %d: the API's list still shows an older title: %.300s", i, b)
			}
			if b, err = get("/ja/events.ics"); err != nil {
				return err
			}
			if !strings.Contains(b, "X-WR-CALNAME:"+name+"\r\n") || !strings.Contains(b, "SUMMARY:"+title+"\r\n") {
				return fmt.Errorf("round %d: the feed still shows an older name or title: %.600s", i, b)
			}
			return nil
		})
	}
}
