package models_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// TestRunInTxRedialsALostConnection: a transaction whose connection dies
// before COMMIT (here killed by the server, as when a Galera node goes and
// HAProxy closes its sessions) is run again on a new connection; what the
// first attempt wrote is gone with it, so the write applies once, and the
// retry is counted.
func TestRunInTxRedialsALostConnection(t *testing.T) {
	db := modelstest.Open(t, models.MySQL)
	ctx := context.Background()
	if _, err := db.Bun.ExecContext(ctx, "CREATE TABLE retry_probe (id INT PRIMARY KEY, attempt INT NOT NULL, label VARCHAR(40) NOT NULL) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	before := models.TxRetries()["conn_lost"]
	attempts := 0
	err := db.RunInTx(ctx, func(tx *models.Store) error {
		attempts++
		if _, err := tx.IDB().ExecContext(ctx, "INSERT INTO retry_probe (id, attempt, label) VALUES (?, ?, ?)", attempts, attempts, "東京の夜会 Ærø"); err != nil {
			return err
		}
		if attempts == 1 {
			var id int64
			if err := tx.IDB().NewRaw("SELECT CONNECTION_ID()").Scan(ctx, &id); err != nil {
				return err
			}
			if _, err := db.Bun.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
				return fmt.Errorf("kill: %w", err)
			}
		}
		_, err := tx.IDB().ExecContext(ctx, "UPDATE retry_probe SET label = ? WHERE id = ?", "서울 축제", attempts)
		return err
	})
	if err != nil {
		t.Fatalf("RunInTx after the connection was killed: %v", err)
	}
	if attempts != 2 {
		t.Errorf("ran %d times, want 2", attempts)
	}
	var rows []struct {
		ID      int64  `bun:"id"`
		Attempt int64  `bun:"attempt"`
		Label   string `bun:"label"`
	}
	if err := db.Bun.NewRaw("SELECT id, attempt, label FROM retry_probe ORDER BY id").Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Attempt != 2 || rows[0].Label != "서울 축제" {
		t.Errorf("rows after the retry: %+v, want only the second attempt's, updated", rows)
	}
	if got := models.TxRetries()["conn_lost"] - before; got < 1 {
		t.Errorf("conn_lost retries counted: %d, want at least 1", got)
	}
	// The pool works on: the dead connection was dropped.
	for range 40 {
		if err := db.Ping(ctx); err != nil {
			t.Fatalf("ping after the kill: %v", err)
		}
	}
}
