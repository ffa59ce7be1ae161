package models

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestRetryReasons: which failures RunInTx runs again, by phase. A lost
// connection is retried before COMMIT and never during it (the COMMIT may
// have been applied); aborts and refusals at any phase; lock waits and
// other errors never.
func TestRetryReasons(t *testing.T) {
	my := func(n uint16, msg string) error {
		return fmt.Errorf("models: x: %w", &mysql.MySQLError{Number: n, Message: msg})
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, c := range []struct {
		name  string
		err   error
		phase txPhase
		want  string
	}{
		{"innodb deadlock", my(1213, "Deadlock found when trying to get lock; try restarting transaction"), phaseBody, retryDeadlock},
		{"wsrep abort at commit", my(1213, "Deadlock: wsrep aborted transaction"), phaseCommit, retryWsrepAbort},
		{"node not ready", my(1047, "WSREP has not yet prepared node for application use"), phaseBegin, retryNotReady},
		{"1047 without wsrep", my(1047, "Unknown command"), phaseBody, ""},
		{"gone away in body", my(2006, "MySQL server has gone away"), phaseBody, retryConnLost},
		{"killed in body", my(1927, "Connection was killed"), phaseBody, retryConnLost},
		{"gone away at commit", my(2006, "MySQL server has gone away"), phaseCommit, ""},
		{"invalid conn in body", fmt.Errorf("x: %w", mysql.ErrInvalidConn), phaseBody, retryConnLost},
		{"invalid conn at commit", mysql.ErrInvalidConn, phaseCommit, ""},
		{"bad conn at begin", driver.ErrBadConn, phaseBegin, retryConnLost},
		{"dial refused at begin", refused, phaseBegin, retryConnLost},
		{"lock wait timeout", my(1205, "Lock wait timeout exceeded; try restarting transaction"), phaseBody, ""},
		{"duplicate", my(1062, "Duplicate entry"), phaseBody, ""},
		{"not found", ErrNotFound, phaseBody, ""},
	} {
		if got := retryReason(c.err, c.phase); got != c.want {
			t.Errorf("%s: retryReason = %q, want %q", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{my(1047, "WSREP has not yet prepared node for application use"), true},
		{my(1205, "Lock wait timeout exceeded"), true},
		{mysql.ErrInvalidConn, true},
		{errors.Join(ErrUnavailable, refused), true},
		{refused, false}, // a fetch's, not the database's
		{my(1062, "Duplicate entry"), false},
		{ErrConflict, false},
		{nil, false},
	} {
		if got := IsFailover(c.err); got != c.want {
			t.Errorf("IsFailover(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
