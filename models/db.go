package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/kalends/kalends/migrations"
)

// Dialect names the SQL flavour behind a DB. Dialect differences stay inside
// this package (this file and the few helpers that branch on it).
type Dialect string

// The two supported dialects.
const (
	SQLite Dialect = "sqlite"
	MySQL  Dialect = "mysql"
)

// DB is an open database: the bun handle plus the Store bound to it.
type DB struct {
	*Store
	Bun     *bun.DB
	dialect Dialect
}

// Store runs every operation of Kalends. It wraps bun.IDB so that the same
// methods run on the database or inside a transaction (see RunInTx).
type Store struct {
	db      bun.IDB
	dialect Dialect
	site    *Site
	media   MediaStorage
	// prep keeps the prepared statements of the hot reads (SQLite, outside
	// transactions; nil otherwise, see prepared.go).
	prep *prepared
	// txPrep is the same cache inside a transaction on SQLite, for the
	// writes that run through exec.
	txPrep *prepared
	// searchMode is the mode of the search index's upkeep in transactions
	// (searchOn, or paused while migrations run; event_search.go).
	searchMode *atomic.Int32
	// searchLists keeps the words' lists of events searches read (nil:
	// none; never set in a transaction's Store; event_search_lists.go).
	searchLists *searchLists
}

// Site returns the site settings the store works with.
func (s *Store) Site() *Site { return s.site }

// UseSite sets the site settings (time zone, languages, page cap,
// currency, clock) every operation reads. Call it once, before serving.
func (db *DB) UseSite(site *Site) {
	if site == nil {
		site = DefaultSite()
	}
	db.site = site
}

// Dialect reports the SQL flavour.
func (s *Store) Dialect() Dialect { return s.dialect }

// IDB exposes the underlying bun handle, for tests and for the few callers
// that need raw access (EXPLAIN in index tests, health checks).
func (s *Store) IDB() bun.IDB { return s.db }

// RunInTx runs fn with a Store bound to one transaction; the transaction is
// committed when fn returns nil and rolled back otherwise.
func (s *Store) RunInTx(ctx context.Context, fn func(tx *Store) error) error {
	if _, ok := s.db.(bun.Tx); ok { // already in a transaction: join it
		return fn(s)
	}
	// MySQL resolves lock cycles between concurrent writers (two creates
	// racing for the same unique slug or name) by rolling one transaction
	// back with a deadlock error that asks to restart it: do so, a few times
	// (and so for a Galera cluster's aborts and a failover, txretry.go).
	// On MySQL each statement of a write reads what is committed
	// (READ COMMITTED, as PostgreSQL's default): a retried slug look-up
	// sees the slugs other writers committed meanwhile, where REPEATABLE
	// READ kept showing the transaction's first snapshot (concurrent creates
	// of one title ran out of attempts), and no gap locks are taken. Rows
	// that must not change under a write are locked explicitly (FOR UPDATE).
	var opts *sql.TxOptions
	if s.dialect == MySQL {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	body := func(_ context.Context, tx bun.Tx) error {
		st := &Store{db: tx, dialect: s.dialect, site: s.site, media: s.media, txPrep: s.prep, searchMode: s.searchMode}
		if err := fn(st); err != nil {
			return err
		}
		// The search index follows the events' text in the same
		// transaction (event_search.go).
		return st.indexMarked(ctx)
	}
	if s.dialect == MySQL {
		// Deadlocks, and what a Galera failover gives, are retried
		// (txretry.go).
		return s.runInTxMySQL(ctx, opts, body)
	}
	return mapErr(s.db.RunInTx(ctx, opts, body))
}

// Open connects to the database named by dsn: "sqlite:PATH" (the embedded
// default; the file is created when missing) or
// "mysql://USER:PASS@HOST:PORT/DBNAME" (MySQL 8 or MariaDB 10.6+; the
// database is created with utf8mb4 when missing and the account may).
// It does not migrate; call Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		return openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	case strings.HasPrefix(dsn, "mysql://"):
		return openMySQL(ctx, dsn)
	}
	return nil, fmt.Errorf("models: open: unsupported database %q (want sqlite:PATH or mysql://USER:PASS@HOST:PORT/DBNAME)", redactDSN(dsn))
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("models: open: empty SQLite path")
	}
	// Memory databases and URIs are SQLite's own business; a file is
	// created owner-only (it holds password hashes).
	if path != ":memory:" && !strings.HasPrefix(path, "file:") {
		if err := ensurePrivateDB(path); err != nil {
			return nil, fmt.Errorf("models: open sqlite: %w", err)
		}
	}
	// busy_timeout must come before journal_mode: switching to WAL needs a
	// lock, and without the timeout a second process fails at once.
	// foreign_keys is per connection, so it goes in the DSN (applied to all).
	// _txlock=immediate takes the write lock at BEGIN, which avoids the
	// deadlock of two readers upgrading to writers at once.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "temp_store(MEMORY)")
	// Reads through a memory map of up to 2 GiB (SQLite's default ceiling;
	// address space, not memory): pages come from the OS page cache shared
	// by all connections, instead of one pread per page into each
	// connection's own 2 MB cache (which a list's count over a big window
	// overflows, so every request read its pages again). 100,000 seeded
	// events take 370 MB, past the 256 MiB this was first. Writes still go
	// through the WAL.
	q.Add("_pragma", "mmap_size(2147418112)")
	q.Set("_txlock", "immediate")
	q.Set("_time_format", "sqlite")
	sqldb, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("models: open sqlite: %w", err)
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	if err := ping(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("models: open sqlite %s: %w", path, err)
	}
	prep := &prepared{db: db, stmts: map[string]*sql.Stmt{}}
	return &DB{Store: &Store{db: db, dialect: SQLite, site: DefaultSite(), prep: prep, searchMode: new(atomic.Int32)}, Bun: db, dialect: SQLite}, nil
}

// MySQLConfig turns a mysql:// URL into a driver configuration with the
// settings Kalends relies on: UTC everywhere, parseTime, utf8mb4.
func MySQLConfig(dsn string) (*mysql.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "mysql" || u.Host == "" {
		return nil, fmt.Errorf("models: bad MySQL URL %q (want mysql://USER:PASS@HOST:PORT/DBNAME)", redactDSN(dsn))
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.Contains(cfg.DBName, "/") || strings.ContainsAny(cfg.DBName, "`'\"\\") {
		return nil, fmt.Errorf("models: bad MySQL database name in %q", redactDSN(dsn))
	}
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if !strings.Contains(u.Host, ":") {
		cfg.Addr = u.Host + ":3306"
	}
	if sock := u.Query().Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'"}
	cfg.Timeout = 5 * time.Second
	cfg.ReadTimeout = 30 * time.Second
	cfg.WriteTimeout = 30 * time.Second
	cfg.MultiStatements = false
	return cfg, nil
}

func openMySQL(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := MySQLConfig(dsn)
	if err != nil {
		return nil, err
	}
	if err := createMySQLDatabase(ctx, cfg); err != nil {
		return nil, err
	}
	db, err := openMySQLPool(ctx, cfg, dsn)
	if err != nil {
		return nil, err
	}
	if galera, err := isGalera(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("models: open mysql %s: %w", redactDSN(dsn), err)
	} else if galera {
		// On a Galera node every session waits, before a read, until the
		// node has applied what the cluster committed before it
		// (wsrep_sync_wait=1): a read sent after a failover, or to a node
		// that lags, sees the writes acknowledged before it.
		_ = db.Close()
		cfg.Params["wsrep_sync_wait"] = "1"
		if db, err = openMySQLPool(ctx, cfg, dsn); err != nil {
			return nil, err
		}
	}
	return &DB{Store: &Store{db: db, dialect: MySQL, site: DefaultSite(), searchMode: new(atomic.Int32)}, Bun: db, dialect: MySQL}, nil
}

// openMySQLPool opens the pool of connections of cfg and pings it.
// Connections that die with a node or the proxy are dropped and redialled:
// the driver checks a pooled connection is alive before reusing it
// (CheckConnLiveness) and reports a dead one as driver.ErrBadConn, which
// makes database/sql dial a new one; an idle connection is closed after a
// minute, so a pool does not keep many to a node the proxy has left.
func openMySQLPool(ctx context.Context, cfg *mysql.Config, dsn string) (*bun.DB, error) {
	cfg.CheckConnLiveness = true
	sqldb, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, fmt.Errorf("models: open mysql: %w", err)
	}
	sqldb.SetMaxOpenConns(32)
	sqldb.SetMaxIdleConns(16)
	sqldb.SetConnMaxLifetime(30 * time.Minute)
	sqldb.SetConnMaxIdleTime(time.Minute)
	db := bun.NewDB(sqldb, mysqldialect.New(mysqldialect.WithTimeLocation("UTC")))
	if err := ping(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("models: open mysql %s: %w", redactDSN(dsn), err)
	}
	return db, nil
}

// isGalera reports whether the server is a node of a Galera cluster
// (wsrep_on; MySQL 8 has no such variable, MariaDB without a cluster has
// it OFF).
func isGalera(ctx context.Context, db *bun.DB) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW VARIABLES LIKE 'wsrep_on'")
	if err != nil {
		return false, mapErr(err)
	}
	defer func() { _ = rows.Close() }()
	var name, value string
	if rows.Next() {
		if err := rows.Scan(&name, &value); err != nil {
			return false, mapErr(err)
		}
	}
	return strings.EqualFold(value, "ON"), mapErr(rows.Err())
}

// createMySQLDatabase creates the database (utf8mb4) when it does not exist
// and the account may. An account without the right still works against an
// existing database, so a permission error here is not fatal.
func createMySQLDatabase(ctx context.Context, cfg *mysql.Config) error {
	admin := cfg.Clone()
	admin.DBName = ""
	sqldb, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		return fmt.Errorf("models: open mysql: %w", err)
	}
	defer func() { _ = sqldb.Close() }()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = sqldb.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+cfg.DBName+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1044 || me.Number == 1045 || me.Number == 1227) {
		return nil // no CREATE right: assume the database exists; the ping will tell
	}
	if err != nil {
		return fmt.Errorf("models: create database %s: %w", cfg.DBName, mapErr(err))
	}
	return nil
}

func ping(ctx context.Context, db *bun.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return mapErr(db.PingContext(ctx))
}

// Ping reports whether the database answers within the context's deadline.
func (db *DB) Ping(ctx context.Context) error { return mapErr(db.Bun.PingContext(ctx)) }

// Close closes the database.
func (db *DB) Close() error {
	if db.prep != nil {
		db.prep.close()
	}
	return db.Bun.Close()
}

// Migrate applies the pending migrations of the dialect under the
// migrator's lock, marking each applied only when it succeeded. Several
// instances may start at once: the loser of the lock waits and retries.
func (db *DB) Migrate(ctx context.Context) (applied []string, err error) {
	rep, err := db.MigrateAndReport(ctx)
	return rep.Applied, err
}

// MigrationReport says what Migrate did: the migrations applied, and the
// slugs and names the composing of stored text had to change (see
// TextCollision), which the caller should log.
type MigrationReport struct {
	Applied    []string
	Collisions []TextCollision
	// Newer are the applied migrations this binary does not know: a newer
	// Kalends migrated the database and still allows this one to use it
	// (a rolling upgrade, see NewerSchemaError). The caller should log them.
	Newer []string
}

// MigrateAndReport is Migrate, with what its migrations changed.
func (db *DB) MigrateAndReport(ctx context.Context) (rep MigrationReport, err error) {
	src := migrations.SQLite()
	if db.dialect == MySQL {
		src = migrations.MySQL()
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(src); err != nil {
		return rep, fmt.Errorf("models: migrate: discover: %w", err)
	}
	db.addTextMigration(ms, &rep.Collisions)
	m := migrate.NewMigrator(db.Bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return rep, fmt.Errorf("models: migrate: init: %w", mapErr(err))
	}
	lock, err := db.lockMigrations(ctx, m)
	if err != nil {
		return rep, err
	}
	defer func() {
		if uerr := lock.unlock(context.WithoutCancel(ctx)); uerr != nil && err == nil {
			err = fmt.Errorf("models: migrate: unlock: %w", uerr)
		}
	}()
	if rep.Newer, err = db.checkNewerSchema(ctx, m, ms); err != nil {
		return rep, err
	}
	db.searchMode.Store(searchPaused)
	// The indexes a seed that was killed left aside (seed_aside.go), in
	// the schema they were made in, before a migration changes it. The
	// events it marked for the search index are the backlog's, below.
	var group *migrate.MigrationGroup
	err = db.restoreIndexes(ctx)
	if err == nil {
		group, err = m.Migrate(ctx)
	}
	db.searchMode.Store(searchOn)
	if err != nil {
		// Collisions resolved before the failure stay in rep: they were
		// written (each batch commits).
		return rep, fmt.Errorf("models: migrate: %w", mapErr(err))
	}
	for _, mg := range group.Migrations {
		rep.Applied = append(rep.Applied, mg.Name)
	}
	// Events a migration marked for the search index (all of them when
	// the index is made) are folded now, under the lock.
	if _, err := db.IndexBacklog(ctx); err != nil {
		return rep, fmt.Errorf("models: migrate: %w", err)
	}
	return rep, nil
}

// redactDSN hides the password of a mysql:// URL for messages and logs.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Now is the store's clock: UTC, truncated to whole seconds. Every stored
// time goes through it (or through Sec) so that SQLite's TEXT times compare
// and sort correctly and MySQL's DATETIME holds exactly what was written.
func Now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Sec normalises a time for storage: UTC, whole seconds.
func Sec(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// SetDriverLogger sends the MySQL driver's own messages (dropped idle
// connections and the like, which it otherwise prints to stderr) to l, so
// they follow --log-format. It is process-wide, as the driver's logger is.
func SetDriverLogger(l *slog.Logger) {
	_ = mysql.SetLogger(driverLogger{l})
}

type driverLogger struct{ l *slog.Logger }

func (d driverLogger) Print(v ...any) { d.l.Warn("models: mysql driver", "msg", fmt.Sprint(v...)) }

// CacheGeneration reads the number that every change of a record moves
// (triggers on the record and translation tables, in the writing
// transaction): a response cache made under another number is stale.
func (s *Store) CacheGeneration(ctx context.Context) (int64, error) {
	var gen int64
	// Prepared (s.scan): every search reads it (searchListsNow).
	if err := s.scan(ctx, &gen, "SELECT gen FROM cache_generation WHERE id = 1"); err != nil {
		return 0, fmt.Errorf("models: cache generation: %w", mapErr(err))
	}
	return gen, nil
}

// bumpGenerationSQL moves the cache generation.
const bumpGenerationSQL = "UPDATE cache_generation SET gen = gen + 1 WHERE id = 1"

// bumpCacheGeneration moves the cache generation in s's transaction, for
// writes that no trigger of a record's table moves it for (the site's
// settings; the search index's refolds, event_search_lists.go).
func (s *Store) bumpCacheGeneration(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, bumpGenerationSQL); err != nil {
		return fmt.Errorf("models: cache generation: %w", mapErr(err))
	}
	return nil
}
