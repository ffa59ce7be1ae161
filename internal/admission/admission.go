// Package admission bounds how many requests the server works on at once.
//
// With more requests in progress than the machine has cores, they all share
// the cores and each one finishes late: under sixteen concurrent lists on
// two cores, a list that needs 10 ms of CPU is answered after 80–200 ms. A
// Gate lets a few requests work and makes the others wait their turn in
// arrival order, so a request's time is its wait plus its own work, and the
// slowest ones are no longer the ones that shared the cores the longest.
// Only work that reaches the database goes through a gate: answers from the
// response cache and static assets never wait.
package admission

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// ErrBusy is returned when a request waited the gate's whole patience for
// a turn; the surfaces answer it as 503 (Wrap sets Retry-After).
var ErrBusy = errors.New("admission: the server is busy")

// Gate lets at most a fixed number of reads and of writes through at once;
// the others wait in arrival order (a Go channel queues blocked senders
// first come, first served), each for at most the gate's patience. Reads
// and writes have slots of their own: a writer waiting for the database's
// write lock (say behind a command-line import) never keeps a read, which
// needs no lock, from its turn, and writers queued here take the lock in
// arrival order instead of SQLite's busy-wait lottery, whose unlucky
// writers waited seconds. The zero of *Gate (nil) lets everything through.
type Gate struct {
	reads, writes chan struct{}
	patience      time.Duration
	waiting       atomic.Int64
}

// New returns a gate of reads read slots and writes write slots whose
// waiters give up after patience; reads <= 0 gives nil, a gate that never
// waits (writes <= 0 is one slot).
func New(reads, writes int, patience time.Duration) *Gate {
	if reads <= 0 {
		return nil
	}
	return &Gate{reads: make(chan struct{}, reads), writes: make(chan struct{}, max(writes, 1)), patience: patience}
}

// Waiting is the number of requests waiting for a turn now.
func (g *Gate) Waiting() int {
	if g == nil {
		return 0
	}
	return int(g.waiting.Load())
}

// Enter waits for a read slot and returns the function that frees it, or
// ErrBusy after the gate's patience.
func (g *Gate) Enter() (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	return g.enter(g.reads)
}

// EnterWrite is Enter for a write slot.
func (g *Gate) EnterWrite() (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	return g.enter(g.writes)
}

func (g *Gate) enter(slots chan struct{}) (release func(), err error) {
	select {
	case slots <- struct{}{}:
	default:
		g.waiting.Add(1)
		defer g.waiting.Add(-1)
		t := time.NewTimer(g.patience)
		defer t.Stop()
		select {
		case slots <- struct{}{}:
		case <-t.C:
			return nil, ErrBusy
		}
	}
	return func() { <-slots }, nil
}

// Wrap runs next once the request has a slot: a read slot for GET and
// HEAD, a write slot for the other methods. A handler wrapped must not call
// another wrapped handler of the same gate while it holds its slot.
func (g *Gate) Wrap(next fiber.Handler) fiber.Handler {
	if g == nil {
		return next
	}
	return func(c *fiber.Ctx) error {
		enter := g.EnterWrite
		if m := c.Method(); m == fiber.MethodGet || m == fiber.MethodHead {
			enter = g.Enter
		}
		release, err := enter()
		if err != nil {
			c.Set(fiber.HeaderRetryAfter, "1")
			return err
		}
		defer release()
		return next(c)
	}
}

// Middleware is Wrap for a group of routes: the rest of the chain runs once
// the request has a slot.
func (g *Gate) Middleware() fiber.Handler {
	return g.Wrap(func(c *fiber.Ctx) error { return c.Next() })
}
