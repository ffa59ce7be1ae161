package models_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestChangeFeedNeverSkipsAHeldTransaction: a writer holds its transaction
// open after writing; two others write meanwhile, and a reader follows the
// feed all along. The reader never sees a later writer's change before the
// held one commits, and in the end has every committed change exactly
// once, in commit order; the rolled-back write is in no one's feed. On
// both dialects.
func TestChangeFeedNeverSkipsAHeldTransaction(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		str := func(s string) *string { return &s }
		start, err := db.ChangesHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var committed []int64 // venue ids in commit order
		wrote, release := make(chan int64), make(chan struct{})
		heldDone := make(chan error, 1)
		go func() {
			heldDone <- db.RunInTx(ctx, func(tx *models.Store) error {
				v, _, err := tx.Venues().Create(ctx, ed, models.VenueInput{Venue: str("長い取引の会場")}, "ja")
				if err != nil {
					close(wrote)
					return err
				}
				wrote <- v.ID
				<-release
				mu.Lock()
				committed = append(committed, v.ID)
				mu.Unlock()
				return nil
			})
		}()
		held, ok := <-wrote
		if !ok {
			t.Fatal(<-heldDone)
		}
		var rolledBack int64
		var wg sync.WaitGroup
		for i, name := range []string{"Café Crème", "벚꽃 홀"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := db.RunInTx(ctx, func(tx *models.Store) error {
					v, _, err := tx.Venues().Create(ctx, ed, models.VenueInput{Venue: str(name)}, "en")
					if err != nil {
						return err
					}
					mu.Lock()
					defer mu.Unlock()
					committed = append(committed, v.ID)
					if i == 1 {
						rolledBack = v.ID
						committed = committed[:len(committed)-1]
						return fmt.Errorf("roll back")
					}
					return nil
				})
				if err != nil && i != 1 {
					t.Error(err)
				}
			}()
		}
		// The reader follows the feed while the writer holds on.
		cursor := start
		var seen []int64
		follow := func() {
			t.Helper()
			p, err := db.Changes(ctx, nil, cursor, false, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Items {
				if c.Kind == models.KindVenue {
					seen = append(seen, c.ID)
				}
			}
			cursor = p.Next
		}
		for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
			follow()
			if len(seen) > 0 {
				t.Fatalf("the feed showed %v while the first writer (venue %d) had not committed", seen, held)
			}
		}
		close(release)
		if err := <-heldDone; err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for deadline := time.Now().Add(10 * time.Second); len(seen) < 2 && time.Now().Before(deadline); {
			follow()
		}
		follow()
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(seen, committed) || len(seen) != 2 || seen[0] != held {
			t.Errorf("feed %v, commits %v (held %d, rolled back %d)", seen, committed, held, rolledBack)
		}
		// Read again from the start in pages of one: the same.
		var again []int64
		for c := start; ; {
			p, err := db.Changes(ctx, nil, c, false, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range p.Items {
				if ch.Kind == models.KindVenue {
					again = append(again, ch.ID)
				}
			}
			if p.Next == c {
				break
			}
			c = p.Next
		}
		if !slices.Equal(again, seen) {
			t.Errorf("read again in pages of one: %v, want %v", again, seen)
		}
	})
}

// TestPruneChangesInBatches: 25,000 changes, the first 23,000 made before
// the time kept (with a gap in their numbers), are pruned in batches: the
// old ones go, the recent ones stay, and the floor is the last old change,
// on both dialects.
func TestPruneChangesInBatches(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		var base int64
		if err := db.IDB().NewRaw("SELECT seq FROM change_seq WHERE id = 1").Scan(ctx, &base); err != nil {
			t.Fatal(err)
		}
		const old, all = 23000, 25000
		kept := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		for lo := 1; lo <= all; lo += 1000 {
			q := "INSERT INTO changes (seq, kind, record_id, new_status, at) VALUES "
			var args []any
			for i := lo; i < lo+1000; i++ {
				if i == 500 || i == old-1 || i == old {
					continue // numbers never used (rolled back)
				}
				at := kept.Add(-time.Duration(old-i) * time.Second)
				if i > old {
					at = kept.Add(time.Duration(i-old) * time.Second)
				}
				if len(args) > 0 {
					q += ", "
				}
				q += "(?, 'event', ?, 'publish', ?)"
				args = append(args, base+int64(i), i, at.Format(time.DateTime))
			}
			if _, err := db.IDB().NewRaw(q, args...).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.IDB().NewRaw("UPDATE change_seq SET seq = ? WHERE id = 1", base+all).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := db.PruneChanges(ctx, kept)
		if err != nil {
			t.Fatal(err)
		}
		var left, low, floor int64
		if err := db.IDB().NewRaw("SELECT COUNT(*), MIN(seq) FROM changes WHERE seq > ?", base).Scan(ctx, &left, &low); err != nil {
			t.Fatal(err)
		}
		if err := db.IDB().NewRaw("SELECT floor FROM change_seq WHERE id = 1").Scan(ctx, &floor); err != nil {
			t.Fatal(err)
		}
		// Made before kept: 1 to old-2 but 500 (the one at kept itself,
		// old, is a gap). The floor is the last of them.
		if n < old-3 || left != all-old || low != base+old+1 || floor != base+old-2 {
			t.Errorf("pruned %d, left %d from %d, floor %d; want at least %d pruned, %d left from %d, floor %d",
				n, left, low, floor, old-3, all-old, base+old+1, base+old-2)
		}
		// Nothing more to prune.
		if n, err := db.PruneChanges(ctx, kept); err != nil || n != 0 {
			t.Errorf("second prune: %d, %v", n, err)
		}
	})
}
