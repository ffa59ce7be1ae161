package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/internal/eventcsv"
)

// importCSV reads a CSV file of events, venues or organizers (--kind; the
// command line's door onto internal/csvimport, which the admin's import
// shares): the encoding detected or --encoding (several clean readings
// are refused, naming --encoding), the separator detected, the columns by
// TEC's names or ours, dates in --date-order. Each row is written on its
// own; a row with a problem is reported with its row number and column
// (in English), and the others go on. --dry-run reads and checks every row
// and writes nothing.
func importCSV(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	kind := cmp.Or(cmd.kind, eventcsv.KindEvents)
	if !csvimport.ValidKind(kind) {
		return &usageError{"--kind must be events, venues or organizers"}
	}
	order := eventcsv.DateOrder(cmp.Or(strings.ToLower(cmd.dateOrder), string(eventcsv.MDY)))
	if order != eventcsv.MDY && order != eventcsv.DMY {
		return &usageError{"--date-order must be mdy or dmy"}
	}
	data, err := readLimited(cmd.file, importMax)
	if err != nil {
		return err
	}
	f, _, cands, err := csvimport.Open(data, cmd.encoding)
	if errors.Is(err, eventcsv.ErrAmbiguous) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s reads cleanly in more than one encoding; name it with --encoding:", cmd.file)
		for _, c := range cands {
			first, _, _ := strings.Cut(c.Text, "\n")
			fmt.Fprintf(&b, "\n  --encoding %s: %s", c.Encoding, truncateRunes(first, 60))
		}
		return &usageError{b.String()}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.file, err)
	}
	s := csvimport.Settings{Kind: kind, Order: order, Mapping: eventcsv.GuessMapping(kind, f.Header)}
	if len(s.Missing()) > 0 {
		if kind == eventcsv.KindEvents {
			return &usageError{fmt.Sprintf("%s: no column of the event's name and start date (e.g. \"Event Name\" and \"Event Start Date\"); its columns are %q", cmd.file, f.Header)}
		}
		return &usageError{fmt.Sprintf("%s: no column of the %s' names (e.g. \"Venue Name\" or \"Organizer Name\"); its columns are %q", cmd.file, kind, f.Header)}
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
	bundle, err := i18n.New(logger)
	if err != nil {
		return err
	}
	lang := i18n.OrSource(siteOf(cmd.cfg).Language())
	var rep csvimport.Report
	if cmd.dryRun {
		var ok int
		ok, rep = csvimport.Check(f, s, lang)
		_, _ = fmt.Fprintf(stdout, "%s: %d rows to import, %d with problems (dry run: nothing written)\n", kind, ok, rep.Failed)
	} else {
		w := csvimport.NewWriter(db, u, lang, siteOf(cmd.cfg).Zone())
		for i := range f.Rows {
			r, probs := csvimport.Parse(f, i, s, lang)
			switch {
			case len(probs) > 0:
				rep.Add(probs...)
			case r != nil:
				rep.Count(w.Write(ctx, r, kind))
			}
		}
		_, _ = fmt.Fprintf(stdout, "%s: created %d, updated %d, unchanged %d, failed %d\n", kind, rep.Created, rep.Updated, rep.Unchanged, rep.Failed)
	}
	for _, p := range rep.Problems {
		_, _ = fmt.Fprintf(stdout, "row %d, %s: %s\n", p.Row, p.Column, p.Message(bundle, i18n.Source))
	}
	if rep.Failed > len(rep.Problems) {
		_, _ = fmt.Fprintf(stdout, "(only the first %d problems are listed)\n", len(rep.Problems))
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d rows of %s were not imported (listed above)", rep.Failed, cmd.file)
	}
	return nil
}

// readLimited reads file, refusing one longer than limit.
func readLimited(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file) //nolint:gosec // G304: the operator names the file to import.
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB", file, limit>>20)
	}
	return data, nil
}

// truncateRunes cuts s to n characters.
func truncateRunes(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}

// ptrOf is a pointer to a copy of v.
func ptrOf[T any](v T) *T { return &v }
