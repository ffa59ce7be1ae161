package admission

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestGateLetsWaitersInInArrivalOrder(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every goroutine is
	// blocked: the waiter is then queued on the slot, not merely counted
	// (Waiting counts a waiter a moment before it queues, so polling it let
	// the next waiter overtake on a busy machine).
	synctest.Test(t, func(t *testing.T) {
		g := New(1, 1, time.Minute)
		release, err := g.Enter()
		if err != nil {
			t.Fatal(err)
		}
		order := make(chan int, 5)
		for i := range 5 {
			go func() {
				rel, err := g.Enter()
				if err != nil {
					t.Error(err)
					return
				}
				order <- i
				rel()
			}()
			synctest.Wait() // the next waiter arrives only once this one waits
			if g.Waiting() != i+1 {
				t.Fatalf("%d waiting, want %d", g.Waiting(), i+1)
			}
		}
		release()
		for want := range 5 {
			if got := <-order; got != want {
				t.Fatalf("waiter %d went in %d-th, want arrival order", got, want)
			}
		}
		synctest.Wait()
		if g.Waiting() != 0 {
			t.Errorf("%d still waiting", g.Waiting())
		}
	})
}

func TestGateRefusesAfterItsPatience(t *testing.T) {
	g := New(2, 2, 30*time.Millisecond)
	r1, _ := g.Enter()
	r2, _ := g.Enter()
	start := time.Now()
	if _, err := g.Enter(); !errors.Is(err, ErrBusy) {
		t.Fatalf("third request with two slots taken: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, before its patience", d)
	}
	// Writes have slots of their own.
	w, err := g.EnterWrite()
	if err != nil {
		t.Fatalf("a write with the read slots taken: %v", err)
	}
	r1()
	r3, err := g.Enter()
	if err != nil {
		t.Fatalf("a slot was freed: %v", err)
	}
	r2()
	r3()
	w()
	if len(g.reads)+len(g.writes) != 0 {
		t.Errorf("%d read and %d write slots still taken", len(g.reads), len(g.writes))
	}
}

func TestWritesWaitForWriteSlots(t *testing.T) {
	g := New(1, 1, 30*time.Millisecond)
	w, _ := g.EnterWrite()
	if _, err := g.EnterWrite(); !errors.Is(err, ErrBusy) {
		t.Fatalf("second write with one write slot taken: %v, want ErrBusy", err)
	}
	r, err := g.Enter()
	if err != nil {
		t.Fatalf("a read while a write works: %v", err)
	}
	r()
	w()
}

func TestNilGateNeverWaits(t *testing.T) {
	var g *Gate
	if New(0, 1, time.Second) != nil || g.Waiting() != 0 {
		t.Fatal("a gate of no slots is nil and empty")
	}
	release, err := g.Enter()
	if err != nil {
		t.Fatal(err)
	}
	release()
}
