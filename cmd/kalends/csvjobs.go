package main

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/csvimport"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// maxImportBytes bounds --import-max-bytes: the upload is read into memory.
const maxImportBytes = 1 << 30

// csvImportInterval is how often an instance looks for a queued CSV import
// (a read of one row; the lease is asked for only when there is one).
const csvImportInterval = time.Second

// validateImport checks --import-max-bytes.
func (c *Config) validateImport(bad func(format string, a ...any)) {
	if c.ImportMaxBytes == 0 {
		c.ImportMaxBytes = ui.DefaultImportMaxBytes
	}
	if c.ImportMaxBytes < 1024 || c.ImportMaxBytes > maxImportBytes {
		bad("--import-max-bytes must be from 1024 to %d, not %d", maxImportBytes, c.ImportMaxBytes)
	}
}

func (c *Config) importMax() int64 {
	if c.ImportMaxBytes <= 0 {
		return ui.DefaultImportMaxBytes
	}
	return c.ImportMaxBytes
}

// isSpreadsheet tells the admin's CSV upload, the one request that may send
// --import-max-bytes.
func isSpreadsheet(c *fiber.Ctx) bool {
	return c.Method() == fiber.MethodPost && strings.TrimSuffix(c.Path(), "/") == "/admin/import/csv"
}

// runCSVImports runs the admin's queued CSV imports (internal/csvimport)
// until ctx ends, on one instance at a time; the function it returns
// stops it and waits.
func runCSVImports(ctx context.Context, db *models.DB, logger *slog.Logger) (stop func()) {
	ictx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); csvimport.Serve(ictx, db, csvImportInterval, logger) }()
	return func() { cancel(); <-done }
}
