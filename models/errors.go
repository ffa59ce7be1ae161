package models

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors of the store, checked with errors.Is. The API maps them to
// the WordPress error shape in one place.
var (
	// ErrNotFound: no row matches.
	ErrNotFound = errors.New("models: not found")
	// ErrConflict: a unique constraint would be violated.
	ErrConflict = errors.New("models: conflict")
	// ErrUnavailable: the database does not answer (down, unreachable, timed out).
	ErrUnavailable = errors.New("models: database unavailable")
)

// mapErr turns driver errors of both dialects into the sentinels above,
// keeping the original as the wrapped cause.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrConflict), errors.Is(err, ErrUnavailable):
		return err
	case errors.Is(err, sql.ErrNoRows):
		return errors.Join(ErrNotFound, err)
	case isUniqueViolation(err):
		return errors.Join(ErrConflict, err)
	case isUnavailable(err):
		return errors.Join(ErrUnavailable, err)
	}
	return err
}

func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1062 // ER_DUP_ENTRY
	}
	return false
}

func isUnavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	if isNetError(err) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		// too many conns, shutdown, lock (or causality) wait, gone away,
		// killed, and Galera's "WSREP has not yet prepared node" (1047)
		case 1040, 1047, 1053, 1205, 1927, 2002, 2003, 2006, 2013:
			return true
		}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED || c == sqlite3.SQLITE_IOERR || c == sqlite3.SQLITE_CANTOPEN
	}
	return strings.Contains(err.Error(), "connection refused")
}

// isNetError reports whether err comes from the network (a dial refused,
// a connection reset).
func isNetError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}
