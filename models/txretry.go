package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
)

// Why RunInTx runs a transaction again. On a single server only deadlocks
// happen; the others are what a Galera cluster behind a proxy gives while a
// node fails or rejoins (ARCHITECTURE.md, "Failover").
const (
	// retryDeadlock: InnoDB's deadlock (1213, "Deadlock found when trying
	// to get lock; try restarting transaction"): the whole transaction was
	// rolled back.
	retryDeadlock = "deadlock"
	// retryWsrepAbort: Galera's brute-force abort or certification failure,
	// also 1213, "Deadlock: wsrep aborted transaction": a write set of
	// another node won, at a statement or at COMMIT; the transaction was
	// rolled back on this node and on no other was it applied.
	retryWsrepAbort = "wsrep_abort"
	// retryNotReady: 1047 (ER_UNKNOWN_COM_ERROR), "WSREP has not yet
	// prepared node for application use": the node is not in the primary
	// component or not yet synced (joining, donor, or cut off). It refuses
	// the statement, so nothing was written; the connection is dropped so
	// the next attempt goes through the proxy again, to a ready node.
	retryNotReady = "wsrep_not_ready"
	// retryConnLost: the connection died before COMMIT was sent (the node
	// or the proxy closed it: driver.ErrBadConn, mysql.ErrInvalidConn, a
	// dial refused,
	// 2006 "server has gone away", 2013 "lost connection", 1053 "server
	// shutdown in progress", 1927 "connection was killed"). A server rolls
	// back the open transaction of a connection it loses, and a node that
	// died took it with it, so running it again on a new connection
	// applies it once. A connection lost during COMMIT is not retried: the
	// COMMIT may have been applied, and the caller is told "unavailable"
	// (503), never "done" nor "failed".
	retryConnLost = "conn_lost"
)

// Lock wait timeouts (1205) are not retried: InnoDB answers one only after
// innodb_lock_wait_timeout (50 s by default), and Galera gives the same
// number when a causality wait (wsrep_sync_wait) runs out
// (repl.causal_read_timeout, 30 s); another wait of that length is longer
// than a client waits. They are answered 503 with Retry-After (mapErr).

// Bounds of the retries. A deadlock is a matter of milliseconds;
// a failover of the time the proxy takes to see a node dead and to send new
// connections to another (HAProxy's fall × inter, about a second in
// scripts/cluster.sh), so connection and readiness failures are retried
// for up to FailoverBudget, with growing pauses. The request's context
// ends both sooner when it ends.
const (
	maxTxAttempts  = 8
	maxFailoverGap = 800 * time.Millisecond
)

// FailoverBudget is how long RunInTx keeps retrying a transaction whose
// connection was lost or whose node was not ready, before it answers
// ErrUnavailable. Tests that cut the database off shorten it.
var FailoverBudget = 6 * time.Second

// txRetries counts the transactions run again, by reason, since the
// process started (shown in /debug/vars).
var txRetries = struct {
	deadlock, wsrepAbort, notReady, connLost, gaveUp atomic.Int64
}{}

// TxRetries returns the retry counters: the transactions RunInTx ran again
// for each reason, and "gave_up": those still failing when the bounds ran
// out (answered as an error).
func TxRetries() map[string]int64 {
	return map[string]int64{
		retryDeadlock:   txRetries.deadlock.Load(),
		retryWsrepAbort: txRetries.wsrepAbort.Load(),
		retryNotReady:   txRetries.notReady.Load(),
		retryConnLost:   txRetries.connLost.Load(),
		"gave_up":       txRetries.gaveUp.Load(),
	}
}

func countRetry(reason string) {
	switch reason {
	case retryDeadlock:
		txRetries.deadlock.Add(1)
	case retryWsrepAbort:
		txRetries.wsrepAbort.Add(1)
	case retryNotReady:
		txRetries.notReady.Add(1)
	case retryConnLost:
		txRetries.connLost.Add(1)
	}
}

// txPhase is how far a transaction got before it failed.
type txPhase int

const (
	phaseBegin  txPhase = iota // BEGIN failed: nothing ran
	phaseBody                  // a statement failed: COMMIT never sent
	phaseCommit                // COMMIT failed: it may have been applied
)

// retryReason says why a transaction that failed with err in phase may be
// run again, or "" when it may not.
func retryReason(err error, phase txPhase) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1213:
			// Rolled back whole, even at COMMIT (certification failure).
			if strings.Contains(strings.ToLower(me.Message), "wsrep") {
				return retryWsrepAbort
			}
			return retryDeadlock
		case 1047:
			if strings.Contains(strings.ToUpper(me.Message), "WSREP") {
				return retryNotReady
			}
			return ""
		case 1053, 1927, 2006, 2013:
			if phase != phaseCommit {
				return retryConnLost
			}
		}
		return ""
	}
	if phase != phaseCommit && connLost(err) {
		return retryConnLost
	}
	return ""
}

// connLost reports whether err says the connection itself is gone.
func connLost(err error) bool {
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || isNetError(err)
}

// IsFailover reports whether err is one a database failover gives: a lost
// or refused connection, a node not ready, a wsrep abort or deadlock that
// outlived the retries, a lock or causality wait that timed out. The
// servers answer such a request 503 with Retry-After, never 500: the
// request may be sent again.
func IsFailover(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1040, 1047, 1053, 1205, 1213, 1927, 2002, 2003, 2006, 2013:
			return true
		}
		return false
	}
	// Not every network error: one from an HTTP fetch is not the
	// database's.
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone)
}

// runInTxMySQL is RunInTx on MySQL: each attempt on a connection of its
// own, so that one a node left useless (1047) can be dropped from the pool.
func (s *Store) runInTxMySQL(ctx context.Context, opts *sql.TxOptions, body func(ctx context.Context, tx bun.Tx) error) error {
	bdb, ok := s.db.(*bun.DB)
	if !ok {
		return s.db.RunInTx(ctx, opts, body)
	}
	start := time.Now()
	var gap time.Duration
	for attempt := 1; ; attempt++ {
		phase := phaseBegin
		var err error
		conn, cerr := bdb.Conn(ctx)
		if cerr != nil {
			err = cerr
		} else {
			err = conn.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
				phase = phaseBody
				if err := body(ctx, tx); err != nil {
					return err
				}
				phase = phaseCommit
				return nil
			})
			reason := retryReason(err, phase)
			if reason == retryNotReady || reason == retryConnLost {
				// Returning ErrBadConn from Raw makes database/sql close
				// the connection instead of pooling it.
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
			_ = conn.Close()
		}
		if err == nil {
			return nil
		}
		reason := retryReason(err, phase)
		if reason == "" || ctx.Err() != nil {
			return mapErr(err)
		}
		switch reason {
		case retryDeadlock, retryWsrepAbort:
			if attempt >= maxTxAttempts {
				txRetries.gaveUp.Add(1)
				return mapErr(err)
			}
			gap = time.Duration(attempt*attempt) * 5 * time.Millisecond
		default:
			if time.Since(start) > FailoverBudget {
				txRetries.gaveUp.Add(1)
				return errors.Join(ErrUnavailable, err)
			}
			gap = min(maxFailoverGap, max(50*time.Millisecond, 2*gap))
		}
		countRetry(reason)
		t := time.NewTimer(gap)
		select {
		case <-ctx.Done():
			t.Stop()
			return mapErr(err)
		case <-t.C:
		}
	}
}
