package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/kalends/kalends/api"
	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/models"
)

// shutdownTimeout bounds how long in-flight requests may take to finish
// after SIGTERM (SPEC §11).
const shutdownTimeout = 10 * time.Second

// run serves until ctx is cancelled (SIGTERM/SIGINT), then stops accepting,
// lets in-flight requests finish (up to shutdownTimeout), closes the
// database and returns nil.
func run(ctx context.Context, cfg *Config, logger *slog.Logger) error {
	models.SetDriverLogger(logger)
	db, err := openMigrated(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() {
		if err := db.Close(); err != nil {
			logger.Warn("kalends: close database", "err", err)
		}
	}()
	if err := bootstrapAdmin(ctx, db, cfg, logger); err != nil {
		return err
	}
	warnLooseDatabase(cfg, logger)
	site := siteOf(cfg)
	db.UseSite(site)
	defer limitMemory(cfg, logger)()
	app, err := newApp(db, site, cfg, logger)
	if err != nil {
		return err
	}
	stopDebug, err := startDebug(cfg, db, logger)
	if err != nil {
		return err
	}
	defer stopDebug()
	// A signal that arrived during start-up is handled by the select below,
	// once the listener is up: it does not cancel the listen itself.
	ln, err := (&net.ListenConfig{}).Listen(context.WithoutCancel(ctx), "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", cfg.Addr, err)
	}
	logger.Info("kalends: listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL,
		"admin", cfg.BaseURL+"/admin/", "api", cfg.BaseURL+"/"+api.Namespace+"/")
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	publishing := make(chan struct{})
	pctx, stopPublishing := context.WithCancel(ctx)
	if cfg.PublishInterval > 0 {
		go func() { defer close(publishing); runPublisher(pctx, db, cfg.PublishInterval, logger) }()
	} else {
		close(publishing)
	}
	sending := make(chan struct{})
	go func() { defer close(sending); newWebhookWorker(db, app, cfg, logger).run(pctx) }()
	pruning := make(chan struct{})
	go func() { defer close(pruning); runChangesPruner(pctx, db, cfg.ChangesKeep, logger) }()
	merging := make(chan struct{})
	go func() { defer close(merging); runSearchMerger(pctx, db, logger) }()
	// However serving ends, the publisher stops before the database closes.
	defer func() { stopPublishing(); <-publishing; <-pruning; <-sending; <-merging }()
	defer runCSVImports(ctx, db, logger)()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("kalends: shutting down; waiting for in-flight requests", "timeout", shutdownTimeout.String())
	if err := app.ShutdownWithTimeout(shutdownTimeout); err != nil {
		// Requests still running after the timeout are cut off; that is the
		// documented bound, not a failure of the shutdown itself.
		logger.Warn("kalends: in-flight requests did not finish in time", "err", err)
	}
	if err := <-served; err != nil {
		logger.Warn("kalends: server stopped with an error", "err", err)
	}
	logger.Info("kalends: stopped")
	return nil
}

// warnLooseDatabase warns when the SQLite database (which holds password
// hashes) or its -wal and -shm can be read by other users of the machine,
// naming the files and the chmod that fixes it. Kalends creates them
// owner-only; an older Kalends or a copy made by hand may not have.
func warnLooseDatabase(cfg *Config, logger *slog.Logger) {
	path, ok := strings.CutPrefix(cfg.DB, "sqlite:")
	if !ok {
		return
	}
	if loose := models.ReadableByOthers(path); len(loose) > 0 {
		quoted := make([]string, len(loose))
		for i, f := range loose {
			quoted[i] = shellQuote(f)
		}
		logger.Warn("kalends: the database can be read by other users of this machine; it holds password hashes",
			"files", strings.Join(loose, " "), "fix", "chmod 600 "+strings.Join(quoted, " "))
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -._/ (so the fix can be pasted as it is).
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r == '-' || r == '.' || r == '_' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
	}
	plain := strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0
	if plain && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// openMigrated opens the database and applies pending migrations.
func openMigrated(ctx context.Context, cfg *Config, logger *slog.Logger) (*models.DB, error) {
	db, err := models.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	rep, err := db.MigrateAndReport(ctx)
	logCollisions(logger, rep.Collisions)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if len(rep.Applied) > 0 {
		logger.Info("kalends: migrations applied", "migrations", rep.Applied)
	}
	if len(rep.Newer) > 0 {
		logger.Warn("kalends: a newer Kalends migrated this database and still allows this version to use it "+
			"(a rolling upgrade): replace this binary with the newer release", "unknown_migrations", rep.Newer)
	}
	return db, nil
}

// logCollisions logs each slug or name that composing stored text (NFC)
// had to change, so the operator knows which addresses moved.
func logCollisions(logger *slog.Logger, cs []models.TextCollision) {
	for _, c := range cs {
		logger.Warn("kalends: composing text (NFC) made two records' "+c.Field+"s equal; the newer one was renamed",
			"kind", string(c.Kind), "id", c.ID, "field", c.Field, "old", c.Old, "new", c.New, "kept_by", c.KeptBy)
	}
}

// runMigrate applies pending migrations and exits.
func runMigrate(ctx context.Context, cfg *Config, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cfg, logger)
	if err != nil {
		return err
	}
	logger.Info("kalends: database is up to date")
	return db.Close()
}

// runRecount recomputes every term count from the links, and the links'
// copies of their events' fields, and the day and month buckets of list totals, and
// says how many were wrong.
func runRecount(ctx context.Context, cfg *Config, stdout io.Writer, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	n, err := db.RecountTerms(ctx)
	if err != nil {
		return err
	}
	links, err := db.RepairEventTermCopies(ctx)
	if err != nil {
		return err
	}
	filed, err := db.RepairEventCategories(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d term counts repaired\n%d category, tag, venue and organizer links repaired\n%d events refiled under their categories\n", n, links, filed)
	if err != nil {
		return err
	}
	days, err := db.RepairDayCounts(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d day and month buckets of the list totals repaired\n", days)
	if err != nil {
		return err
	}
	st, err := db.CheckSearchIndex(ctx)
	if err != nil {
		return err
	}
	if st.InStep() {
		_, err = fmt.Fprintln(stdout, "search index in step")
		return err
	}
	_, err = fmt.Fprintf(stdout, "search index not in step: %d rows missing, %d stale, %d extra, %d events marked to refold%s; run 'kalends reindex'\n",
		st.Missing, st.Stale, st.Extra, st.Marked, map[bool]string{true: ", its lookup tables broken (trigrams or vocabulary)"}[st.FTSBroken])
	return err
}

// runReindex rebuilds the search index of events (kalends reindex).
func runReindex(ctx context.Context, cfg *Config, stdout io.Writer, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	t0 := time.Now()
	n, err := db.Reindex(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "search index rebuilt: %d events in %s\n", n, time.Since(t0).Round(time.Millisecond))
	return err
}

// bootstrapAdmin makes sure an administrator can sign in: the configured
// one is created when no user has its login; with none configured and no
// user at all, "admin" is created with a random password, logged once.
// Several instances may start together: losing the race (ErrConflict) is
// fine.
func bootstrapAdmin(ctx context.Context, db *models.DB, cfg *Config, logger *slog.Logger) error {
	if cfg.AdminLogin != "" {
		_, err := db.GetUserByLogin(ctx, cfg.AdminLogin)
		if err == nil {
			return nil
		}
		if !errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("bootstrap administrator: %w", err)
		}
		u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: cfg.AdminLogin, Password: cfg.AdminPassword, Role: models.RoleAdministrator})
		if errors.Is(err, models.ErrConflict) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("bootstrap administrator --admin-login %q: %w", cfg.AdminLogin,
				explainInvalid(err, map[string]string{"login": "--admin-login", "password": "--admin-password"}))
		}
		logger.Info("kalends: created administrator from --admin-login", "login", u.Login, "id", u.ID)
		return nil
	}
	n, err := db.CountUsers(ctx)
	if err != nil {
		return fmt.Errorf("bootstrap administrator: %w", err)
	}
	if n > 0 {
		return nil
	}
	password := rand.Text() // 26 base32 characters, 130 bits
	u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: "admin", Password: password, Role: models.RoleAdministrator})
	if errors.Is(err, models.ErrConflict) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bootstrap administrator: %w", err)
	}
	logger.Warn("kalends: the database had no user, so an administrator was created; its password is shown only this once",
		"login", u.Login, "password", password)
	return nil
}

// runUserCreate creates a user and prints its id.
func runUserCreate(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	u, err := db.CreateUser(ctx, models.Console, models.NewUser{Login: cmd.login, Password: cmd.password, Role: models.Role(cmd.role),
		Email: cmd.email, DisplayName: cmd.displayName})
	if errors.Is(err, models.ErrConflict) {
		return fmt.Errorf("a user with login %q already exists", models.NormalizeLogin(cmd.login))
	}
	if err != nil {
		return explainInvalid(err, map[string]string{"login": "--login", "password": "--password", "role": "--role",
			"email": "--email", "display_name": "--display-name"})
	}
	_, err = fmt.Fprintln(stdout, u.ID)
	return err
}

// explainInvalid turns a validation error into English sentences naming the
// command-line flags (flags maps field names to them); other errors pass
// through.
func explainInvalid(err error, flags map[string]string) error {
	var ve *models.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	b, berr := i18n.New(nil)
	if berr != nil {
		return err
	}
	parts := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		name := flags[f.Field]
		if name == "" {
			name = f.Field
		}
		parts[i] = name + ": " + b.T("en", f.Reason, f.Data)
	}
	return &usageError{msg: strings.Join(parts, "; ")}
}

// runAppPasswordCreate creates an application password and prints it,
// alone, on stdout (so scripts can capture it).
func runAppPasswordCreate(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	u, err := db.GetUserByLogin(ctx, cmd.login)
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("no user has login %q", models.NormalizeLogin(cmd.login))
	}
	if err != nil {
		return err
	}
	plain, _, err := db.CreateAppPassword(ctx, u.ID, cmd.appName)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, plain)
	return err
}
