package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestPublishDuePublishesScheduledRecordsWhenTheirDatePasses: future
// events, venues and organizers become published once their date has
// passed, not before; other statuses are left alone; term counts follow.
func TestPublishDuePublishesScheduledRecordsWhenTheirDatePasses(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := time.Date(2027, 5, 1, 12, 0, 0, 0, time.UTC)
		db.UseSite(&models.Site{Location: time.UTC, Clock: func() time.Time { return now }})
		admin := newUser(t, db, "admin", models.RoleAdministrator)
		at := func(d time.Duration) models.PostInput {
			return models.PostInput{Status: ptr(models.StatusFuture), DateUTC: ptr(now.Add(d).Format(time.DateTime))}
		}
		mk := func(p models.PostInput) *models.Event {
			in := baseInput("Scheduled", "2027-06-01 10:00", "2027-06-01 11:00")
			in.PostInput = p
			in.Categories = termRefs([]string{"Music"})
			e, err := db.CreateEvent(ctx, admin, in)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		soon, later := mk(at(time.Hour)), mk(at(48*time.Hour))
		draft := mk(models.PostInput{Status: ptr(models.StatusDraft), DateUTC: ptr(now.Add(time.Hour).Format(time.DateTime))})
		venue, _, err := db.Venues().Create(ctx, admin, models.VenueInput{PostInput: at(time.Hour), Venue: ptr("Future hall")}, "en")
		if err != nil {
			t.Fatal(err)
		}
		if soon.Status != models.StatusFuture || venue.Status != models.StatusFuture {
			t.Fatalf("fixtures: event %s, venue %s", soon.Status, venue.Status)
		}
		status := func(id int64) string {
			t.Helper()
			e, err := db.GetEvent(ctx, admin, models.ByID(id), "en")
			if err != nil {
				t.Fatal(err)
			}
			return e.Status
		}
		if n, err := db.PublishDue(ctx); err != nil || n != 0 {
			t.Fatalf("before the date: published %d, %v", n, err)
		}
		now = now.Add(2 * time.Hour)
		if n, err := db.PublishDue(ctx); err != nil || n != 2 {
			t.Fatalf("after the date: published %d, %v; want the event and the venue", n, err)
		}
		if status(soon.ID) != models.StatusPublish || status(later.ID) != models.StatusFuture || status(draft.ID) != models.StatusDraft {
			t.Errorf("statuses: due %s, later %s, draft %s", status(soon.ID), status(later.ID), status(draft.ID))
		}
		if v, err := db.Venues().Get(ctx, nil, models.ByID(venue.ID), "en"); err != nil || v.Status != models.StatusPublish {
			t.Errorf("venue after its date: %v %v", v, err)
		}
		if n, err := db.RecountTerms(ctx); err != nil || n != 0 {
			t.Errorf("term counts after publishing: %d wrong, %v", n, err)
		}
		if n, err := db.PublishDue(ctx); err != nil || n != 0 {
			t.Errorf("a second run published %d, %v", n, err)
		}
	})
}

// TestLeasesGoToOneHolderAtATime: of several instances asking at once,
// one gets the lease; it renews it; another takes it once it expired.
func TestLeasesGoToOneHolderAtATime(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := time.Date(2027, 5, 1, 12, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		db.UseSite(&models.Site{Location: time.UTC, Clock: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
		const n = 6
		got := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = db.TryLease(ctx, "job", fmt.Sprint("holder-", i), time.Minute)
			}()
		}
		wg.Wait()
		winners := 0
		winner := ""
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("holder %d: %v", i, errs[i])
			}
			if got[i] {
				winners++
				winner = fmt.Sprint("holder-", i)
			}
		}
		if winners != 1 {
			t.Fatalf("%d holders got the lease, want 1", winners)
		}
		if ok, err := db.TryLease(ctx, "job", winner, time.Minute); err != nil || !ok {
			t.Errorf("the holder could not renew: %v %v", ok, err)
		}
		if ok, _ := db.TryLease(ctx, "job", "other", time.Minute); ok {
			t.Error("another holder took a live lease")
		}
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		if ok, err := db.TryLease(ctx, "job", "other", time.Minute); err != nil || !ok {
			t.Errorf("an expired lease was not taken over: %v %v", ok, err)
		}
		if err := db.ReleaseLease(ctx, "job", "other"); err != nil {
			t.Fatal(err)
		}
		if ok, err := db.TryLease(ctx, "job", winner, time.Minute); err != nil || !ok {
			t.Errorf("a released lease was not free: %v %v", ok, err)
		}
	})
}
