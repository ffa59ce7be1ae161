package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
)

type hook struct{}

func (h *hook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context { return ctx }
func (h *hook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	fmt.Printf("%6.1f ms  %s\n\n", float64(time.Since(e.StartTime).Microseconds())/1000, e.Query)
}

func main() {
	ctx := context.Background()
	db, err := models.Open(ctx, os.Args[1])
	if err != nil {
		panic(err)
	}
	db.AddQueryHook(&hook{})
	u, err := db.CheckSignIn(ctx, "probe", "probe-password-123")
	if err != nil {
		panic(err)
	}
	now := time.Now()
	for i := 0; i < 2; i++ {
		fmt.Println("=== admin upcoming")
		db.ListEvents(ctx, u, models.EventFilter{EndsAfter: &now, IncludeHidden: true, PerPage: 20, Lang: "en"})
	}
}
