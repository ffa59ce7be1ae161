package csvimport

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// Open decodes data (in encoding, or detected when it is "") and reads it.
// When more than one legacy encoding reads it cleanly, the error is
// eventcsv.ErrAmbiguous with every candidate.
func Open(data []byte, encoding string) (f *File, used string, candidates []eventcsv.Candidate, err error) {
	text, used, candidates, err := eventcsv.Decode(data, encoding)
	if err != nil {
		return nil, "", candidates, err
	}
	f, err = Read(text)
	return f, used, candidates, err
}

// Check reads every row of f (a dry run): how many rows would be written,
// and the problems of the others. Nothing is written.
func Check(f *File, s Settings, lang string) (ok int, rep Report) {
	for i := range f.Rows {
		r, probs := Parse(f, i, s, lang)
		switch {
		case len(probs) > 0:
			rep.Add(probs...)
		case r != nil:
			ok++
		}
	}
	return ok, rep
}

// Message ids of why a job failed (import.csv.job.*).
const (
	JobInterrupted = "import.csv.job.interrupted"
	JobNoUser      = "import.csv.job.no_user"
	JobUnreadable  = "import.csv.job.unreadable"
)

// maxAttempts is how many times a job is started (the first time, then
// after each interruption) before it is failed.
const maxAttempts = 3

// SettingsOf returns the settings stored with job j.
func SettingsOf(j *models.CSVImport) (Settings, error) {
	s := Settings{Kind: j.Kind, Order: eventcsv.DateOrder(j.DateOrder)}
	if j.Mapping != "" {
		if err := json.Unmarshal([]byte(j.Mapping), &s.Mapping); err != nil {
			return s, fmt.Errorf("csvimport: mapping of import %d: %w", j.ID, err)
		}
	}
	return s, nil
}

// ProblemsOf returns the problems stored with job j.
func ProblemsOf(j *models.CSVImport) []Problem {
	var out []Problem
	_ = json.Unmarshal([]byte(j.Problems), &out)
	return out
}

// Holder names this process among the instances.
func Holder() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// Serve runs the queued imports (RunOnce) every interval until ctx ends,
// on one instance at a time; it releases the lease when it stops.
func Serve(ctx context.Context, db *models.DB, interval time.Duration, logger *slog.Logger) {
	holder := Holder()
	defer func() {
		if err := db.ReleaseLease(context.WithoutCancel(ctx), models.CSVImportLease, holder); err != nil {
			logger.Warn("kalends: release the csv import lease", "err", err)
		}
	}()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := RunOnce(ctx, db, holder, 10*interval+30*time.Second); err != nil && ctx.Err() == nil {
			logger.Warn("kalends: csv import", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce runs the oldest queued import, or resumes one whose instance
// stopped (from its last saved row: rows written again are found and left
// unchanged), when holder gets the lease csv-import for ttl (renewed as it
// goes). A job started maxAttempts times already is failed with
// JobInterrupted, so none stays running forever.
func RunOnce(ctx context.Context, db *models.DB, holder string, ttl time.Duration) error {
	j, err := db.NextCSVImport(ctx)
	if err != nil || j == nil {
		return err
	}
	if ok, err := db.TryLease(ctx, models.CSVImportLease, holder, ttl); err != nil || !ok {
		return err
	}
	// Read it again under the lease: another instance may have run it.
	if j, err = db.GetCSVImport(ctx, models.Console, j.ID); err != nil || j.Finished() || j.State == models.ImportNew {
		return err
	}
	if j.Attempts >= maxAttempts {
		return fail(ctx, db, j, JobInterrupted)
	}
	if err := db.StartCSVImport(ctx, j); err != nil {
		return err
	}
	u, err := db.ImportOwner(ctx, j)
	if err != nil {
		return fail(ctx, db, j, JobNoUser)
	}
	data, err := db.CSVImportData(ctx, j)
	if err != nil {
		return err
	}
	s, err := SettingsOf(j)
	if err != nil {
		return fail(ctx, db, j, JobUnreadable)
	}
	f, _, _, err := Open(data, j.Encoding)
	if err != nil || len(s.Missing()) > 0 {
		return fail(ctx, db, j, JobUnreadable)
	}
	return run(ctx, db, holder, ttl, j, u, f, s)
}

// saveEvery is how often a running job saves its progress (and renews its
// lease).
const saveEvery = time.Second

// run writes the rows of f from j.Done on.
func run(ctx context.Context, db *models.DB, holder string, ttl time.Duration, j *models.CSVImport, u *models.User, f *File, s Settings) error {
	lang := i18n.OrSource(db.Site().Language())
	w := NewWriter(db, u, lang, db.Site().Zone())
	rep := Report{Created: j.Created, Updated: j.Updated, Unchanged: j.Unchanged, Failed: j.Failed, Problems: ProblemsOf(j)}
	j.Total = len(f.Rows)
	save := func() error {
		j.Created, j.Updated, j.Unchanged, j.Failed = rep.Created, rep.Updated, rep.Unchanged, rep.Failed
		b, err := json.Marshal(rep.Problems)
		if err != nil {
			return err
		}
		j.Problems = string(b)
		return db.SaveCSVImport(ctx, j)
	}
	last := time.Now()
	for j.Done < len(f.Rows) {
		if err := ctx.Err(); err != nil {
			return err // stopped: the next start resumes from the saved row
		}
		r, probs := Parse(f, j.Done, s, lang)
		switch {
		case len(probs) > 0:
			rep.Add(probs...)
		case r != nil:
			rep.Count(w.Write(ctx, r, s.Kind))
		}
		j.Done++
		if time.Since(last) >= saveEvery {
			last = time.Now()
			if err := save(); err != nil {
				return err
			}
			if ok, err := db.TryLease(ctx, models.CSVImportLease, holder, ttl); err != nil || !ok {
				return err // another instance took over
			}
		}
	}
	j.State = models.ImportDone
	return save()
}

// fail ends job j as failed for reason (a message id).
func fail(ctx context.Context, db *models.DB, j *models.CSVImport, reason string) error {
	j.State, j.Error = models.ImportFailed, reason
	if err := db.SaveCSVImport(ctx, j); err != nil {
		return errors.Join(fmt.Errorf("csvimport: import %d failed: %s", j.ID, reason), err)
	}
	return nil
}
