package models

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// SQLite spends about as long parsing and planning a short query as running
// it (a profile of the single-event read put 28% of its CPU in the parser),
// and bun writes every argument into the query text, so no two reads share
// a statement. The reads every event, venue, organizer and term costs (the
// record, its links, its venues, organizers and terms, their translations)
// therefore keep prepared statements: written once with ? placeholders and
// prepared once per connection by database/sql, they are only bound and
// stepped afterwards.

// maxPrepared bounds the statements kept; a query past it runs through bun.
const maxPrepared = 256

// maxPreparedArgs bounds the arguments of a prepared read; a longer one
// (an export's IN list) runs through bun.
const maxPreparedArgs = 1024

// prepared holds the statements of one database and the query hooks that
// must see them (bun runs its own for everything else).
type prepared struct {
	db      *bun.DB
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt
	pending map[string]bool // being prepared in the background (cached)
	hooks   []bun.QueryHook
	// background counts the preparations under way in the background,
	// which close waits for; closed stops new ones. A preparation left
	// running past DB.Close could open a connection, and on SQLite files
	// beside the database, after its owner removed them.
	background sync.WaitGroup
	closed     bool
}

// AddQueryHook adds a query hook that sees every query, those of prepared
// statements included (bun's AddQueryHook sees only bun's).
func (db *DB) AddQueryHook(h bun.QueryHook) {
	db.Bun.AddQueryHook(h) //nolint:staticcheck // SA1019: the store holds this *bun.DB; WithQueryHook would return a copy it never uses
	if p := db.prep; p != nil {
		p.mu.Lock()
		p.hooks = append(p.hooks[:len(p.hooks):len(p.hooks)], h)
		p.mu.Unlock()
	}
}

// stmt returns the statement of query, prepared on first use, or nil when
// the cache is full. The lock is not held while preparing, which waits for
// a connection of the pool.
func (p *prepared) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	st, full := p.stmts[query], len(p.stmts) >= maxPrepared
	p.mu.Unlock()
	if st != nil || full {
		return st, nil
	}
	st, err := p.db.DB.PrepareContext(ctx, query) //nolint:sqlclosecheck // kept until DB.Close (prepared.close)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if had := p.stmts[query]; had != nil || len(p.stmts) >= maxPrepared {
		_ = st.Close() //nolint:sqlclosecheck // prepared meanwhile by another caller, or the cache filled up: not kept
		return had, nil
	}
	p.stmts[query] = st
	return st, nil
}

// cached returns the statement of query if it is prepared already, and
// otherwise prepares it in the background and returns nil. A transaction
// must not wait for a second connection of the pool (on SQLite, one that
// holds the write lock would wait for a connection another writer holds
// while that writer waits for the lock).
func (p *prepared) cached(query string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stmts[query]
	if st == nil && !p.closed && !p.pending[query] && len(p.stmts) < maxPrepared {
		if p.pending == nil {
			p.pending = map[string]bool{}
		}
		p.pending[query] = true
		p.background.Add(1)
		go func() {
			defer p.background.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _ = p.stmt(ctx, query) //nolint:sqlclosecheck // kept in the cache until DB.Close; a failure leaves the write on bun
			p.mu.Lock()
			delete(p.pending, query)
			p.mu.Unlock()
		}()
	}
	return st
}

// observe runs do, the execution of query with args through a prepared
// statement, between the query hooks (bun runs them for its own queries).
func (p *prepared) observe(ctx context.Context, query string, args []any, do func(context.Context) error) error {
	p.mu.Lock()
	hooks := p.hooks
	p.mu.Unlock()
	if len(hooks) == 0 {
		return do(ctx)
	}
	e := &bun.QueryEvent{DB: p.db, Query: p.db.QueryGen().FormatQuery(query, args...), QueryTemplate: query, QueryArgs: args, StartTime: time.Now(),
		Stash: map[any]any{preparedMark{}: true}}
	for _, h := range hooks {
		ctx = h.BeforeQuery(ctx, e)
	}
	err := do(ctx)
	e.Err = err
	for i := len(hooks) - 1; i >= 0; i-- {
		hooks[i].AfterQuery(ctx, e)
	}
	return err
}

// preparedMark marks, in a query event's Stash, a statement run through
// its prepared statement (the tests tell them from bun's own).
type preparedMark struct{}

func (p *prepared) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.background.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for q, st := range p.stmts {
		_ = st.Close()
		delete(p.stmts, q)
	}
}

// query runs a read written with ? placeholders: on SQLite through its
// prepared statement (inside a transaction, the statement prepared once per
// connection, as exec does), through bun (arguments written into the text)
// otherwise. The caller closes the rows.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if len(args) > maxPreparedArgs {
		return s.db.QueryContext(ctx, query, args...)
	}
	if p := s.prep; p != nil {
		st, err := p.stmt(ctx, query) //nolint:sqlclosecheck // the cache's, closed by prepared.close
		if err != nil || st == nil {
			return s.db.QueryContext(ctx, query, args...)
		}
		return p.queryStmt(ctx, st, query, args)
	}
	if tx, ok := s.db.(bun.Tx); ok && s.txPrep != nil {
		// The transaction's own statement: database/sql closes it with
		// the transaction (closing it here would close the rows too).
		if st := s.txPrep.cached(query); st != nil {
			return s.txPrep.queryStmt(ctx, tx.StmtContext(ctx, st), query, args) //nolint:sqlclosecheck // closed with the transaction
		}
	}
	return s.db.QueryContext(ctx, query, args...)
}

// queryStmt runs query's statement st with args between the query hooks.
func (p *prepared) queryStmt(ctx context.Context, st *sql.Stmt, query string, args []any) (*sql.Rows, error) {
	args = bindArgs(args)
	var rows *sql.Rows
	err := p.observe(ctx, query, args, func(ctx context.Context) error {
		var err error
		rows, err = st.QueryContext(ctx, args...) //nolint:sqlclosecheck,rowserrcheck // the caller's
		return err
	})
	return rows, err
}

// exec runs a write written with ? placeholders: inside a transaction on
// SQLite through the statement prepared once per connection (the
// transaction's connection keeps it), through bun otherwise. Times are
// bound as the text bun writes (bindArgs): the driver's own form differs,
// and stored times are compared as text.
func (s *Store) exec(ctx context.Context, query string, args ...any) error {
	_, err := s.execResult(ctx, query, args...)
	return err
}

// execResult is exec, with the statement's result.
func (s *Store) execResult(ctx context.Context, query string, args ...any) (sql.Result, error) {
	p := s.txPrep
	tx, inTx := s.db.(bun.Tx)
	if p == nil || !inTx || len(args) > maxPreparedArgs {
		return s.db.ExecContext(ctx, query, args...)
	}
	st := p.cached(query)
	if st == nil {
		return s.db.ExecContext(ctx, query, args...)
	}
	ts := tx.StmtContext(ctx, st) // the connection's own prepared statement
	defer func() { _ = ts.Close() }()
	args = bindArgs(args)
	var res sql.Result
	err := p.observe(ctx, query, args, func(ctx context.Context) error {
		var err error
		res, err = ts.ExecContext(ctx, args...)
		return err
	})
	return res, err
}

// bindArgs are args as a prepared statement binds them: times as the text
// bun writes (timeText), so that they compare with stored times as the
// same query run through bun would; the rest as they are. args is copied
// only when it holds a time.
func bindArgs(args []any) []any {
	out := args
	for i, a := range args {
		var text any
		switch t := a.(type) {
		case time.Time:
			text = timeText(t)
		case *time.Time:
			if t == nil {
				text = nil
			} else {
				text = timeText(*t)
			}
		default:
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		out[i] = text
	}
	return out
}

// inList is the placeholders and arguments of an IN list of ids. Lists are
// padded with their last id (an id twice changes nothing in IN) to the
// next power of two up to 128 and to a multiple of 128 beyond, so a
// handful of statements serve every length.
func inList(ids []int64) (string, []any) {
	n := len(ids)
	if n == 0 {
		return "NULL", nil
	}
	size := 1
	for size < n && size < 128 {
		size *= 2
	}
	if n > size {
		size = (n + 127) / 128 * 128
	}
	args := make([]any, size)
	for i := range args {
		args[i] = ids[min(i, n-1)]
	}
	return strings.TrimSuffix(strings.Repeat("?, ", size), ", "), args
}

// inStrings is the placeholders and arguments of an IN list of strings,
// one each.
func inStrings(list []string) (string, []any) {
	args := make([]any, len(list))
	for i, v := range list {
		args[i] = v
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(list)), ", "), args
}

// repeatArgs is args n times over (a query with the same IN list in n
// places).
func repeatArgs(args []any, n int) []any {
	out := make([]any, 0, len(args)*n)
	for range n {
		out = append(out, args...)
	}
	return out
}

// scan runs a read written with ? placeholders (as query) and scans its
// rows into dest, a slice of bun models or of structs, as bun would.
func (s *Store) scan(ctx context.Context, dest any, query string, args ...any) error {
	if (s.prep == nil && s.txPrep == nil) || len(args) > maxPreparedArgs {
		return s.db.NewRaw(query, args...).Scan(ctx, dest)
	}
	rows, err := s.query(ctx, query, args...) //nolint:rowserrcheck // ScanRows closes rows and returns rows.Err()
	if err != nil {
		return err
	}
	db := s.prep
	if db == nil {
		db = s.txPrep
	}
	return db.db.ScanRows(ctx, rows, dest)
}

// queryTexts keeps the text of the prepared reads bun writes from a model
// (its column list), by dialect and name.
var queryTexts sync.Map

// modelQuery is the text named key of s's dialect, built by build once.
func (s *Store) modelQuery(key string, build func() string) string {
	k := string(s.dialect) + "\x00" + key
	if q, ok := queryTexts.Load(k); ok {
		return q.(string)
	}
	q := build()
	queryTexts.Store(k, q)
	return q
}

// conds is the conditions of a statement written with placeholders (for
// s.scan), with their arguments in order.
type conds struct {
	where []string
	args  []any
}

// add adds cond and its arguments.
func (c *conds) add(cond string, args ...any) {
	c.where, c.args = append(c.where, cond), append(c.args, args...)
}

// addAll adds conditions with their arguments (statusScope's).
func (c *conds) addAll(where []string, args []any) {
	c.where, c.args = append(c.where, where...), append(c.args, args...)
}

// at adds cond with t as its argument, written as stored (timeText), when
// t is set.
func (c *conds) at(cond string, t *time.Time) {
	if t != nil {
		c.add(cond, timeText(Sec(*t)))
	}
}

// window adds f's window (start at StartMin or later, end at EndMax or
// earlier) on the columns of prefix, as windowConds writes it on SQLite:
// a unary + on end_at, and EndMax bounding the start too.
func (c *conds) window(prefix string, f EventFilter) {
	c.at(prefix+"start_at >= ?", f.StartMin)
	c.at("+"+prefix+"end_at <= ?", f.EndMax)
	c.at(prefix+"start_at <= ?", f.EndMax) // an event ends after it starts
}

// linkProbes adds, for each link filter, that the event ev (an SQL
// expression of its id) has a link to one of its records.
func (c *conds) linkProbes(links []linkFilter, ev string) {
	for _, o := range links {
		in, inArgs := inList(o.ids)
		c.add("EXISTS (SELECT 1 FROM "+o.table+" p WHERE p.event_id = "+ev+" AND p."+o.col+" IN ("+in+"))", inArgs...)
	}
}

// sql is the conditions joined by AND.
func (c *conds) sql() string { return strings.Join(c.where, " AND ") }
