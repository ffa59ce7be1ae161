package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kalends/kalends/models"
)

// seedFlags are the flags of the seed command.
type seedFlags struct {
	opts     models.SeedOptions
	from, to string
}

// addSeedFlags declares the seed flags on fs, with the realistic defaults.
func addSeedFlags(fs *flag.FlagSet, f *seedFlags) {
	f.opts = models.DefaultSeedOptions(time.Now())
	o := &f.opts
	fs.IntVar(&o.Events, "events", o.Events, "number of events")
	fs.IntVar(&o.Venues, "venues", o.Venues, "number of venues")
	fs.IntVar(&o.Organizers, "organizers", o.Organizers, "number of organizers")
	fs.IntVar(&o.Categories, "categories", o.Categories, "number of event categories (a third are parents of the others)")
	fs.IntVar(&o.Tags, "tags", o.Tags, "number of tags")
	fs.IntVar(&o.VenuesPerEvent, "venues-per-event", o.VenuesPerEvent, "venues linked to each event (0 or 1)")
	fs.IntVar(&o.OrganizersPerEvent, "organizers-per-event", o.OrganizersPerEvent, "organizers linked to each event")
	fs.IntVar(&o.CategoriesPerEvent, "categories-per-event", o.CategoriesPerEvent, "categories linked to each event")
	fs.IntVar(&o.TagsPerEvent, "tags-per-event", o.TagsPerEvent, "tags linked to each event")
	fs.Float64Var(&o.Drafts, "drafts", o.Drafts, "share of drafts (0 to 1)")
	fs.Float64Var(&o.AllDay, "all-day", o.AllDay, "share of all-day events (0 to 1)")
	fs.Float64Var(&o.MultiDay, "multi-day", o.MultiDay, "share of events over several days (0 to 1)")
	fs.Float64Var(&o.Hidden, "hidden", o.Hidden, "share of events hidden from listings (0 to 1)")
	fs.Float64Var(&o.Translated, "translations", o.Translated, "share of records with a translation (0 to 1)")
	fs.StringVar(&f.from, "from", o.From.Format(time.DateOnly), "first start date (YYYY-MM-DD)")
	fs.StringVar(&f.to, "to", o.To.Format(time.DateOnly), "last start date (YYYY-MM-DD)")
	fs.Int64Var(&o.Seed, "seed", o.Seed, "random seed: the same seed and flags give the same data on SQLite and MySQL")
	fs.BoolVar(&o.Force, "force", false, "seed even when the database already holds events")
	fs.IntVar(&o.Series, "series", 0, "number of the events made weekly recurring series (their occurrences are added)")
	fs.IntVar(&o.SeriesCount, "series-count", 26, "occurrences of each series")
}

// options reads the date flags into the seed options.
func (f *seedFlags) options() (models.SeedOptions, error) {
	o := f.opts
	var err error
	if o.From, err = time.Parse(time.DateOnly, f.from); err != nil {
		return o, fmt.Errorf("--from: want YYYY-MM-DD, got %q", f.from)
	}
	if o.To, err = time.Parse(time.DateOnly, f.to); err != nil {
		return o, fmt.Errorf("--to: want YYYY-MM-DD, got %q", f.to)
	}
	return o, nil
}

// runSeed writes demo data (models.Store.Seed) as the first administrator,
// created as serve would when the database has no user, with a progress bar
// on a terminal and a line per tenth otherwise.
func runSeed(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	o, err := cmd.seed.options()
	if err != nil {
		return err
	}
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if err := bootstrapAdmin(ctx, db, cmd.cfg, logger); err != nil {
		return err
	}
	admins, err := db.ListUsers(ctx, models.Console, models.UserFilter{Role: models.RoleAdministrator, PerPage: 1})
	if err != nil {
		return err
	}
	if len(admins.Items) == 0 {
		return errors.New("no administrator to write the records as: create one with 'kalends user create'")
	}
	o.AuthorID = admins.Items[0].ID
	start := time.Now()
	rep, err := db.Seed(ctx, o, seedProgress(stdout))
	if errors.Is(err, models.ErrNotEmpty) {
		return errors.New("the database already holds events: add --force to seed anyway")
	}
	if err != nil {
		return err
	}
	took := time.Since(start)
	_, err = fmt.Fprintf(stdout, "seeded %d events (%d links, %d translations), %d venues, %d organizers, %d categories, %d tags in %s (%.0f events/s)\n",
		rep.Events, rep.Links, rep.Translations, rep.Venues, rep.Organizers, rep.Categories, rep.Tags,
		took.Round(time.Millisecond), float64(rep.Events)/took.Seconds())
	if err == nil && rep.Series > 0 {
		_, err = fmt.Fprintf(stdout, "%d of them are weekly series, with %d occurrences more\n", rep.Series, rep.Occurrences)
	}
	return err
}

// seedProgress reports progress: a bar when stdout is a terminal, else a
// line at every tenth.
func seedProgress(stdout io.Writer) func(done, total int) {
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("events"),
					progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set(done)
		}
	}
	next := 0
	return func(done, total int) {
		if done*10 >= next*total || done == total {
			_, _ = fmt.Fprintf(stdout, "%d/%d events\n", done, total)
			next = done*10/max(total, 1) + 1
		}
	}
}
