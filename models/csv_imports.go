package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// States of a CSV import job.
const (
	ImportNew     = "new"     // uploaded; its owner sets it up (mapping, kind, encoding) and runs a dry run
	ImportQueued  = "queued"  // waits for the instance holding the lease
	ImportRunning = "running" // rows are being written
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// CSVImportLease names the lease that lets one instance run CSV imports at
// a time.
const CSVImportLease = "csv-import"

// importChunk bounds one row of csv_import_chunks: below MySQL's default
// max_allowed_packet (16 MiB), whatever the file's size.
const importChunk = 4 << 20

// CSVImport is a CSV file uploaded in the admin and the job that imports
// it (issue 33): the internal/csvimport package reads and writes the rows,
// this record keeps the settings and the progress so that a page reload,
// another instance or a restart finds them.
type CSVImport struct {
	bun.BaseModel `bun:"table:csv_imports"`

	ID        int64  `bun:"id,pk,autoincrement"`
	UserID    int64  `bun:"user_id,notnull"`
	FileName  string `bun:"file_name,notnull"`
	Size      int64  `bun:"size,notnull"`
	State     string `bun:"state,notnull"`
	Kind      string `bun:"kind,notnull"`
	Encoding  string `bun:"encoding,notnull"`   // "" until chosen or detected
	DateOrder string `bun:"date_order,notnull"` // mdy or dmy
	Mapping   string `bun:"mapping,notnull"`    // JSON array of fields, "" until guessed
	Total     int    `bun:"total,notnull"`      // rows of the file (blank ones included)
	Done      int    `bun:"done,notnull"`       // rows handled so far
	Created   int    `bun:"created,notnull"`
	Updated   int    `bun:"updated,notnull"`
	Unchanged int    `bun:"unchanged,notnull"`
	Failed    int    `bun:"failed,notnull"`
	Problems  string `bun:"problems,notnull"` // JSON array of the first problems
	// Error is the message id of why a failed job stopped.
	Error      string     `bun:"error,notnull"`
	Attempts   int        `bun:"attempts,notnull"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	UpdatedAt  time.Time  `bun:"updated_at,notnull"`
	FinishedAt *time.Time `bun:"finished_at"`
}

// Finished reports whether the job is over (done or failed).
func (j *CSVImport) Finished() bool { return j.State == ImportDone || j.State == ImportFailed }

// MayImport reports whether u may import files: who may create events (the
// admin's import page has always asked that).
func MayImport(u *User) bool { return MayAttempt(u, ActCreate, KindEvent) }

// CreateCSVImport stores an uploaded file as a new import of u, of kind,
// with its date order, and returns it.
func (s *Store) CreateCSVImport(ctx context.Context, u *User, name, kind, order string, data []byte) (*CSVImport, error) {
	if err := attempt(u, ActCreate, KindEvent); err != nil {
		return nil, err
	}
	now := s.site.Now()
	j := &CSVImport{UserID: u.ID, FileName: name, Size: int64(len(data)), State: ImportNew, Kind: kind, DateOrder: order,
		Problems: "[]", CreatedAt: now, UpdatedAt: now}
	err := s.RunInTx(ctx, func(tx *Store) error {
		if _, err := tx.db.NewInsert().Model(j).Exec(ctx); err != nil {
			return fmt.Errorf("models: create csv import: %w", mapErr(err))
		}
		for seq := 0; seq*importChunk < len(data) || seq == 0; seq++ {
			part := data[seq*importChunk : min(len(data), (seq+1)*importChunk)]
			_, err := tx.db.NewRaw("INSERT INTO csv_import_chunks (import_id, seq, data) VALUES (?, ?, ?)", j.ID, seq, part).Exec(ctx)
			if err != nil {
				return fmt.Errorf("models: store csv import %d: %w", j.ID, mapErr(err))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return j, nil
}

// GetCSVImport returns import id to its owner; to anyone else it is not
// found (ErrNotFound), like a record one may not read.
func (s *Store) GetCSVImport(ctx context.Context, u *User, id int64) (*CSVImport, error) {
	j := new(CSVImport)
	err := s.db.NewSelect().Model(j).Where("id = ?", id).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: get csv import %d: %w", id, mapErr(err))
	}
	if u != Console && (u == nil || u.ID != j.UserID) {
		return nil, fmt.Errorf("models: get csv import %d: %w", id, ErrNotFound)
	}
	return j, nil
}

// ListCSVImports returns u's latest imports, newest first.
func (s *Store) ListCSVImports(ctx context.Context, u *User, limit int64) ([]*CSVImport, error) {
	if u == nil {
		return nil, nil
	}
	var out []*CSVImport
	err := s.db.NewSelect().Model(&out).Where("user_id = ?", u.ID).OrderExpr("id DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: list csv imports: %w", mapErr(err))
	}
	return out, nil
}

// CSVImportData returns the bytes of import j's file.
func (s *Store) CSVImportData(ctx context.Context, j *CSVImport) ([]byte, error) {
	var parts [][]byte
	err := s.db.NewRaw("SELECT data FROM csv_import_chunks WHERE import_id = ? ORDER BY seq", j.ID).Scan(ctx, &parts)
	if err != nil {
		return nil, fmt.Errorf("models: read csv import %d: %w", j.ID, mapErr(err))
	}
	return bytes.Join(parts, nil), nil
}

// ErrImportStarted is returned when the settings of an import that already
// started are changed.
var ErrImportStarted = errors.New("models: the import has already started")

// SetCSVImport saves the settings of u's new import j; with queue, it is
// queued to run (the total of rows set).
func (s *Store) SetCSVImport(ctx context.Context, u *User, j *CSVImport, queue bool) error {
	if err := attempt(u, ActCreate, KindEvent); err != nil {
		return err
	}
	j.UpdatedAt = s.site.Now()
	q := s.db.NewUpdate().Model(j).Column("kind", "encoding", "date_order", "mapping", "total", "updated_at").
		Where("id = ?", j.ID).Where("user_id = ?", u.ID).Where("state = ?", ImportNew)
	if queue {
		j.State = ImportQueued
		q = q.Column("state")
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: set csv import %d: %w", j.ID, mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrImportStarted
	}
	return nil
}

// NextCSVImport returns the oldest import queued or running (one whose
// instance stopped), or nil.
func (s *Store) NextCSVImport(ctx context.Context) (*CSVImport, error) {
	var out []*CSVImport
	err := s.db.NewSelect().Model(&out).Where("state IN (?)", bun.List([]string{ImportQueued, ImportRunning})).
		OrderExpr("id").Limit(1).Scan(ctx)
	if err != nil || len(out) == 0 {
		return nil, mapErr(err)
	}
	return out[0], nil
}

// StartCSVImport marks j running and counts the start.
func (s *Store) StartCSVImport(ctx context.Context, j *CSVImport) error {
	j.State, j.Attempts, j.UpdatedAt = ImportRunning, j.Attempts+1, s.site.Now()
	_, err := s.db.NewUpdate().Model(j).Column("state", "attempts", "updated_at").Where("id = ?", j.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: start csv import %d: %w", j.ID, mapErr(err))
	}
	return nil
}

// SaveCSVImport stores j's progress (done, the counts and problems), and
// with its state done or failed, its end.
func (s *Store) SaveCSVImport(ctx context.Context, j *CSVImport) error {
	j.UpdatedAt = s.site.Now()
	cols := []string{"done", "total", "created", "updated", "unchanged", "failed", "problems", "updated_at"}
	if j.Finished() {
		at := j.UpdatedAt
		j.FinishedAt = &at
		cols = append(cols, "state", "error", "finished_at")
	}
	_, err := s.db.NewUpdate().Model(j).Column(cols...).Where("id = ?", j.ID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: save csv import %d: %w", j.ID, mapErr(err))
	}
	if j.Finished() { // the file is no longer needed
		_, err = s.db.NewRaw("DELETE FROM csv_import_chunks WHERE import_id = ?", j.ID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("models: drop the file of csv import %d: %w", j.ID, mapErr(err))
		}
	}
	return nil
}

// ImportOwner returns the user import j writes as.
func (s *Store) ImportOwner(ctx context.Context, j *CSVImport) (*User, error) {
	return s.userByID(ctx, j.UserID)
}
