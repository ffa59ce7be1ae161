package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kalends/kalends/i18n"
	"github.com/kalends/kalends/internal/eventcsv"
	"github.com/kalends/kalends/models"
)

// csvPage is how many records one read of the export takes.
const csvPage = 500

// csvStatuses are the records a spreadsheet export holds: every status
// but the trash (it is the site's own copy, drafts included).
var csvStatuses = []string{models.StatusPublish, models.StatusFuture, models.StatusDraft, models.StatusPending, models.StatusPrivate}

// exportCSV writes the events, venues or organizers (--kind) as one CSV
// file: The Events Calendar's column names where it has one, our API's
// names for the rest, and the marker column (eventcsv.FieldMarker) that
// tells our importer the file is ours. Cells a spreadsheet would run as a
// formula are escaped. The text is in the site's language (the source
// text where it has none); the encoding is --encoding, UTF-8 with a BOM
// by default so that Excel opens it in any locale.
func exportCSV(ctx context.Context, db *models.DB, cmd *command, stdout io.Writer) error {
	kind := cmd.kind
	if kind == "" {
		kind = eventcsv.KindEvents
	}
	enc := cmd.encoding
	if enc == "" {
		enc = eventcsv.UTF8BOM
	}
	var rows [][]string
	var err error
	lang := i18n.OrSource(siteOf(cmd.cfg).Language())
	switch kind {
	case eventcsv.KindEvents:
		rows, err = csvEvents(ctx, db, lang, siteOf(cmd.cfg).Zone())
	case eventcsv.KindVenues:
		rows, err = csvVenues(ctx, db, lang)
	case eventcsv.KindOrganizers:
		rows, err = csvOrganizers(ctx, db, lang)
	default:
		return &usageError{"--kind must be events, venues or organizers"}
	}
	if err != nil {
		return err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.UseCRLF = true // what Excel writes and expects
	for i, r := range rows {
		if i > 0 { // the header row is ours
			for j := range r {
				r[j] = eventcsv.EscapeCell(r[j])
			}
		}
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	body, err := eventcsv.Encode(b.String(), enc)
	if err != nil {
		return &usageError{err.Error() + " (choose another --encoding, or utf-8-bom)"}
	}
	if cmd.to == "" {
		_, err = stdout.Write(body)
		return err
	}
	return models.WritePrivate(cmd.to, body)
}

// csvEventHeader is the header of an events file.
var csvEventHeader = []string{"Event Name", "Event Description", "Event Excerpt", "Event Start Date", "Event Start Time",
	"Event End Date", "Event End Time", "All Day Event", "Timezone", "Event Venue Name", "Event Organizer Name",
	"Event Category", "Event Tags", "Event Cost", "Event Currency Symbol", "Event Currency Code", "Event Currency Position",
	"Event Website", "Event Featured Image", "status", "slug", "featured", "hide_from_listings", "show_map", "show_map_link",
	"id", eventcsv.FieldMarker}

// csvEvents lists every event but the trashed, occurrences of series each
// on its row, with dates and times in the event's zone.
func csvEvents(ctx context.Context, db *models.DB, lang string, site *time.Location) ([][]string, error) {
	rows := [][]string{csvEventHeader}
	for page := 1; ; page++ {
		p, err := db.ListEvents(ctx, models.Console, models.EventFilter{Page: page, PerPage: csvPage, Lang: lang,
			Statuses: csvStatuses, IncludeHidden: true})
		if err != nil {
			return nil, err
		}
		for _, e := range p.Items {
			loc, err := models.LoadZone(e.Timezone, site)
			if err != nil {
				loc = site
			}
			start, end := e.StartAt.In(loc), e.EndAt.In(loc)
			var venue string
			if len(e.Venues) > 0 {
				venue = e.Venues[0].Venue
			}
			var orgs, cats, tags []string
			for _, o := range e.Organizers {
				orgs = append(orgs, o.Organizer)
			}
			for _, c := range e.Categories {
				cats = append(cats, c.Name)
			}
			for _, t := range e.Tags {
				tags = append(tags, t.Name)
			}
			website := ""
			if e.Website != nil {
				website = *e.Website
			}
			rows = append(rows, []string{e.Title, e.Description, e.Excerpt,
				start.Format(time.DateOnly), start.Format("15:04"), end.Format(time.DateOnly), end.Format("15:04"),
				yesNo(e.AllDay), e.Timezone, venue, strings.Join(orgs, ", "), strings.Join(cats, ", "), strings.Join(tags, ", "),
				strings.Join(models.CostItems(e.Cost), ", "), e.CurrencySymbol, e.CurrencyCode, e.CurrencyPosition,
				website, e.ImageURL, e.Status, e.Slug, yesNo(e.Featured), yesNo(e.HideFromListings), yesNo(e.ShowMap),
				yesNo(e.ShowMapLink), strconv.FormatInt(e.ID, 10), "1"})
		}
		if len(p.Items) < csvPage {
			return rows, nil
		}
	}
}

// csvVenues lists every venue but the trashed.
func csvVenues(ctx context.Context, db *models.DB, lang string) ([][]string, error) {
	rows := [][]string{{"Venue Name", "Venue Description", "Venue Address", "Venue City", "Venue Country",
		"Venue State/Province", "Venue State", "Venue Zip", "Venue Phone", "Venue Website", "Venue Featured Image",
		"status", "slug", "show_map", "show_map_link", "id", eventcsv.FieldMarker}}
	for page := 1; ; page++ {
		p, err := db.Venues().List(ctx, models.Console, models.LinkedFilter{Page: page, PerPage: csvPage, Statuses: csvStatuses, Lang: lang})
		if err != nil {
			return nil, err
		}
		for _, v := range p.Items {
			rows = append(rows, []string{v.Venue, v.Description, v.Address, v.City, v.Country, v.Province, v.State, v.Zip,
				v.Phone, v.Website, v.ImageURL, v.Status, v.Slug, yesNo(v.ShowMap), yesNo(v.ShowMapLink),
				strconv.FormatInt(v.ID, 10), "1"})
		}
		if len(p.Items) < csvPage {
			return rows, nil
		}
	}
}

// csvOrganizers lists every organizer but the trashed.
func csvOrganizers(ctx context.Context, db *models.DB, lang string) ([][]string, error) {
	rows := [][]string{{"Organizer Name", "Organizer Description", "Organizer Email", "Organizer Phone", "Organizer Website",
		"Organizer Featured Image", "status", "slug", "id", eventcsv.FieldMarker}}
	for page := 1; ; page++ {
		p, err := db.Organizers().List(ctx, models.Console, models.LinkedFilter{Page: page, PerPage: csvPage, Statuses: csvStatuses, Lang: lang})
		if err != nil {
			return nil, err
		}
		for _, o := range p.Items {
			rows = append(rows, []string{o.Organizer, o.Description, o.Email, o.Phone, o.Website, o.ImageURL, o.Status,
				o.Slug, strconv.FormatInt(o.ID, 10), "1"})
		}
		if len(p.Items) < csvPage {
			return rows, nil
		}
	}
}

// yesNo is a boolean cell as TEC's CSV files write it.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
