package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"
)

// importMax bounds the file kalends import reads.
const importMax = 50 << 20

// transferFormat is the format of export or import: --format, else the
// file's extension, else ics. ics carries the published events; json is
// the whole site (models.DumpSite), to move it or keep a copy; csv a
// spreadsheet of one kind of record.
func transferFormat(flagValue, file string) (string, error) {
	f := strings.ToLower(flagValue)
	if f == "" {
		f = strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	}
	if f == "" || f == "ical" || f == "ifb" {
		f = "ics"
	}
	switch f {
	case "csv", "ics", "json":
	default:
		return "", &usageError{fmt.Sprintf("format %q is not supported: use ics, json or csv", f)}
	}
	return f, nil
}

// runExport writes the published events as one iCalendar file, as the
// feed /events.ics would, without its date window; or, as json, the whole
// site.
func runExport(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	format, err := transferFormat(cmd.format, cmd.to)
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	switch {
	case format == "json":
		return exportSite(ctx, db, cmd, stdout)
	case format == "csv":
		return exportCSV(ctx, db, cmd, stdout)
	case cmd.kind != "" || cmd.encoding != "":
		return &usageError{"--kind and --encoding are for --format csv"}
	}
	site := siteOf(cmd.cfg)
	lang := i18n.OrSource(site.Language())
	var events []*models.Event
	for page := 1; ; page++ {
		// As the console (events hidden from listings too), but with the
		// venues and organizers anyone may read: it is the public calendar.
		p, err := db.ListEvents(ctx, models.Console, models.EventFilter{Page: page, PerPage: 500, Lang: lang,
			Statuses: []string{models.StatusPublish}, IncludeHidden: true, PublicLinks: true})
		if err != nil {
			return err
		}
		events = append(events, p.Items...)
		if len(p.Items) < 500 {
			break
		}
	}
	var newest time.Time
	for _, e := range events {
		if e.UpdatedAt.After(newest) {
			newest = e.UpdatedAt
		}
	}
	host := site.BaseURL
	if u, err := url.Parse(host); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	bundle, err := i18n.New(logger)
	if err != nil {
		return err
	}
	series, err := db.SeriesViews(ctx, nil, events, lang)
	if err != nil {
		return err
	}
	body := ical.Write(ical.Calendar{Name: bundle.T(lang, "public.site_name", nil), Zone: site.Zone().String(), Refresh: time.Hour,
		Host: host, Stamp: newest, Events: events, SiteZone: site.Zone(), Series: series,
		URL: func(e *models.Event) string { return site.BaseURL + "/event/" + url.PathEscape(e.Slug) + "/" }})
	if cmd.to == "" {
		_, err = stdout.Write(body)
		return err
	}
	// Owner-only like every file Kalends writes: the operator decides who
	// else may read it.
	return models.WritePrivate(cmd.to, body)
}

// runImport reads an iCalendar file and writes its events as one user, in
// one transaction, then prints what it created, updated and skipped.
func runImport(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	format, err := transferFormat(cmd.format, cmd.file)
	if err != nil {
		return err
	}
	switch {
	case format == "json":
		return importSite(ctx, cmd, stdout, logger)
	case format == "csv":
		return importCSV(ctx, cmd, stdout, logger)
	case cmd.kind != "" || cmd.encoding != "" || cmd.dateOrder != "" || cmd.dryRun:
		return &usageError{"--kind, --encoding, --date-order and --dry-run are for CSV files"}
	}
	f, err := os.Open(cmd.file) //nolint:gosec // G703: the operator names the file to import.
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	items, err := ical.Read(io.LimitReader(f, importMax))
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.file, err)
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	u, err := importUser(ctx, db, cmd.login)
	if err != nil {
		return err
	}
	rep, err := ical.Import(ctx, db, u, items, i18n.OrSource(siteOf(cmd.cfg).Language()))
	if err != nil {
		return fmt.Errorf("%s: nothing imported: %w", cmd.file, err)
	}
	bundle, err := i18n.New(logger)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "created %d, updated %d, skipped %d\n", rep.Created, rep.Updated, len(rep.Skipped))
	for _, s := range rep.Skipped {
		_, _ = fmt.Fprintf(stdout, "skipped %q (%s): %s\n", s.Summary, s.UID, bundle.T(i18n.Source, s.Reason, map[string]any{"Detail": s.Detail}))
	}
	for _, s := range rep.Notes {
		_, _ = fmt.Fprintf(stdout, "note %q (%s): %s\n", s.Summary, s.UID, bundle.T(i18n.Source, s.Reason, map[string]any{"Detail": s.Detail}))
	}
	return nil
}

// importUser is the user named by login, or the first administrator.
func importUser(ctx context.Context, db *models.DB, login string) (*models.User, error) {
	p, err := db.ListUsers(ctx, models.Console, models.UserFilter{Role: models.RoleAdministrator, PerPage: 1})
	if login != "" {
		p, err = db.ListUsers(ctx, models.Console, models.UserFilter{Search: login, PerPage: 50})
	}
	if err != nil {
		return nil, err
	}
	for _, u := range p.Items {
		if login == "" || strings.EqualFold(u.Login, login) {
			return u, nil
		}
	}
	if login != "" {
		return nil, &usageError{fmt.Sprintf("no user with the login %q", login)}
	}
	return nil, errors.New("no administrator to write the records as: create one with 'kalends user create' or pass --login")
}

// exportSite writes the whole site as JSON, to a file only its owner may
// read (it holds password hashes) or to stdout.
func exportSite(ctx context.Context, db *models.DB, cmd *command, stdout io.Writer) error {
	db.UseMedia(cmd.cfg.mediaStorage())
	if cmd.to == "" {
		return db.DumpSite(ctx, stdout)
	}
	// Written beside the target and renamed, so a failed export leaves no
	// half file under the name asked for.
	tmp, err := os.CreateTemp(filepath.Dir(cmd.to), ".kalends-export-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() //nolint:gosec // G703: a temp file made here, beside the file the operator named.
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = db.DumpSite(ctx, bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), cmd.to) //nolint:gosec // G703: the operator names the file to write.
}

// importSite loads a whole-site JSON export into an empty database.
func importSite(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	f, err := os.Open(cmd.file) //nolint:gosec // G703: the operator names the file to import.
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	db.UseMedia(cmd.cfg.mediaStorage())
	rep, err := db.LoadSite(ctx, bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return fmt.Errorf("%s: nothing imported: %w", cmd.file, err)
	}
	logCollisions(logger, rep.Collisions)
	total := 0
	for _, t := range rep.Tables {
		total += t.Rows
		if t.Rows > 0 {
			_, _ = fmt.Fprintf(stdout, "%s: %d\n", t.Name, t.Rows)
		}
	}
	_, _ = fmt.Fprintf(stdout, "imported %d rows from %d tables\n", total, len(rep.Tables))
	return nil
}
