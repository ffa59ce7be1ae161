package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/kalends/kalends/internal/webhook"
	"github.com/kalends/kalends/models"
)

// webhookTypes are the types an endpoint may ask for.
var webhookTypes = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{"event", "venue", "organizer", "category", "tag", "media"} {
		for _, a := range []string{models.ChangeCreated, models.ChangeUpdated, models.ChangeRemoved} {
			m[k+"."+a] = true
		}
	}
	return m
}()

// runWebhook is kalends webhook add|list|remove|rotate, as the console (an
// administrator).
func runWebhook(ctx context.Context, cmd *command, stdout io.Writer, logger *slog.Logger) error {
	db, err := openMigrated(ctx, cmd.cfg, logger)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	db.UseSite(siteOf(cmd.cfg))
	switch cmd.name {
	case "webhook add":
		var events []string
		for _, e := range strings.Split(cmd.events, ",") {
			if e = strings.TrimSpace(e); e == "" {
				continue
			}
			if !webhookTypes[e] {
				return &usageError{fmt.Sprintf("--events: unknown type %q (event, venue, organizer, category, tag or media, then .created, .updated or .removed)", e)}
			}
			events = append(events, e)
		}
		secret := webhook.NewSecret()
		w, err := db.AddWebhook(ctx, models.Console, cmd.webhookArg, cmd.description, events, secret)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%d %s\n", w.ID, secret)
		return err
	case "webhook remove":
		id, err := strconv.ParseInt(cmd.webhookArg, 10, 64)
		if err != nil {
			return &usageError{fmt.Sprintf("not an endpoint id: %q", cmd.webhookArg)}
		}
		return db.RemoveWebhook(ctx, models.Console, id)
	case "webhook rotate":
		id, err := strconv.ParseInt(cmd.webhookArg, 10, 64)
		if err != nil {
			return &usageError{fmt.Sprintf("not an endpoint id: %q", cmd.webhookArg)}
		}
		if _, err := db.GetWebhook(ctx, models.Console, id); err != nil {
			return err
		}
		secret := webhook.NewSecret()
		if err := db.RotateWebhookSecret(ctx, models.Console, id, secret); err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, secret)
		return err
	}
	list, err := db.ListWebhooks(ctx, models.Console)
	if err != nil {
		return err
	}
	for _, w := range list {
		state := "active"
		if !w.Active {
			state = "paused"
		}
		events := w.Events
		if events == "" {
			events = "*"
		}
		if _, err := fmt.Fprintf(stdout, "%d\t%s\t%s\t%s\t%s\n", w.ID, state, w.URL, events, w.Description); err != nil {
			return err
		}
	}
	return nil
}
