package tecimport

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/kalends/kalends/models"
)

// Every date: TEC shows only upcoming events unless asked for a window.
const (
	allFrom = "1900-01-01 00:00:00"
	allTo   = "2199-12-31 23:59:59"
)

// events imports every event: the archive's, then (TEC) those hidden from
// listings, found through WordPress's own route.
func (im *importer) events(ctx context.Context) error {
	q := url.Values{"start_date": {allFrom}, "end_date": {allTo}}
	if im.kalends {
		q.Set("recurrence", "first") // series as series
		if im.opt.Authed {
			q.Set("include_hidden", "true") // Kalends lists them to those who may edit
		}
	}
	t, err := im.read(ctx, "events", "events", q)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	im.rep.kind("event")
	if !im.kalends {
		im.hidden(ctx, t)
	} else if !im.opt.Authed {
		im.rep.note("without credentials, events hidden from listings cannot be read from another Kalends")
	}
	im.each(ctx, "events", len(t.base), func(ctx context.Context, i int) { im.event(ctx, t.base[i], t) })
	im.deleted("event")
	return nil
}

// hidden adds to t the events the archive does not list (hidden from
// listings): WordPress's /wp/v2/tribe_events lists every id (any status
// with credentials), and each missing one is read from TEC's route.
func (im *importer) hidden(ctx context.Context, t *translated) {
	listed := map[int64]bool{}
	for _, raw := range t.base {
		var head struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(raw, &head) == nil {
			listed[head.ID] = true
		}
	}
	var missing []int64
	for page := 1; ; page++ {
		q := url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}, "_fields": {"id"}}
		if im.opt.Authed {
			q.Set("status", "any")
		}
		u := im.root + "/wp/v2/tribe_events?" + q.Encode()
		var ids []struct {
			ID int64 `json:"id"`
		}
		res, err := im.getJSON(ctx, u, &ids)
		var se *StatusError
		if errors.As(err, &se) && page > 1 && se.Status == http.StatusBadRequest {
			break // rest_post_invalid_page_number: past the last page
		}
		if err != nil {
			im.rep.note("WordPress's %s/wp/v2/tribe_events does not answer (%v): events hidden from listings could not be looked up, and how many there are is unknown", im.root, err)
			return
		}
		for _, x := range ids {
			if !listed[x.ID] {
				listed[x.ID] = true
				missing = append(missing, x.ID)
			}
		}
		total, _ := strconv.Atoi(res.Header.Get("X-WP-TotalPages"))
		if len(ids) == 0 || page >= total {
			break
		}
	}
	found := make([]json.RawMessage, len(missing))
	var unreachable []int64
	im.each(ctx, "hidden events", len(missing), func(ctx context.Context, i int) {
		var raw json.RawMessage
		if _, err := im.getJSON(ctx, im.api("events/"+sourceID(missing[i])), &raw); err != nil {
			im.rep.fail("event", im.api("events/"+sourceID(missing[i])), err)
			return
		}
		found[i] = raw
	})
	for i, raw := range found {
		if raw == nil {
			unreachable = append(unreachable, missing[i])
			continue
		}
		t.base = append(t.base, raw)
	}
	if len(missing) > 0 {
		im.rep.note("%d events missing from the archive (hidden from listings) were read one by one; %d of them could not be reached", len(missing), len(unreachable))
	}
}

// event imports one event (a series from another Kalends, with its rule).
func (im *importer) event(ctx context.Context, raw json.RawMessage, t *translated) {
	var se srcEvent
	if err := json.Unmarshal(raw, &se); err != nil || se.ID == 0 {
		im.rep.fail("event", im.api("events"), fmt.Errorf("not an event: %w", cmp.Or(err, errNoID)))
		return
	}
	srcID := se.ID
	if se.SeriesID != nil && *se.SeriesID != 0 {
		srcID = *se.SeriesID // the series, whichever row the list showed
	}
	srcURL := im.api("events/" + sourceID(se.ID))
	lang := im.langOf(se.Lang)
	var trs []srcEvent
	for _, l := range otherLangs(lang, se.Translations) {
		var tr srcEvent
		if r := t.translation(l, se.ID); r != nil && json.Unmarshal(r, &tr) == nil {
			tr.Lang = l
			trs = append(trs, tr)
		}
	}
	// Linked records first: ids here.
	var venues, organizers, cats, tags []int64
	for _, v := range se.venues() {
		id, err := im.linked(ctx, "venue", v)
		if err != nil {
			im.rep.fail("event", srcURL, fmt.Errorf("its venue: %w", err))
			return
		}
		venues = append(venues, id)
	}
	for _, o := range se.Organizer {
		id, err := im.linked(ctx, "organizer", o)
		if err != nil {
			im.rep.fail("event", srcURL, fmt.Errorf("its organizer: %w", err))
			return
		}
		organizers = append(organizers, id)
	}
	for _, c := range se.Categories {
		if id := im.local("category", c.ID); id != 0 {
			cats = append(cats, id)
		} else if !im.opt.DryRun {
			im.rep.fail("event", srcURL, fmt.Errorf("its category %q (id %d at the source) was not imported", c.Name, c.ID))
			return
		}
	}
	for _, c := range se.Tags {
		if id := im.local("tag", c.ID); id != 0 {
			tags = append(tags, id)
		} else if !im.opt.DryRun {
			im.rep.fail("event", srcURL, fmt.Errorf("its tag %q (id %d at the source) was not imported", c.Name, c.ID))
			return
		}
	}
	img := imageURL(se.Image)
	website := se.Website
	if website == se.URL {
		website = "" // Kalends (and TEC's templates) show the permalink when there is none
	}
	rule := ""
	if se.Recurrence != nil {
		rule = se.Recurrence.ICal
	}
	sig := se
	sig.Image, sig.Venue, sig.Organizer, sig.Categories, sig.Tags, sig.ID = nil, nil, nil, nil, nil, 0
	hash := hashOf([]any{sig, img, venues, organizers, cats, tags, trs})
	_, err := im.upsert(ctx, "event", models.KindEvent, srcID, srcURL, hash, func(ctx context.Context, id int64) (int64, error) {
		slug, err := im.slugFor(ctx, models.KindEvent, se.Slug, id)
		if err != nil {
			return 0, err
		}
		in := models.EventInput{Title: &se.Title, Description: &se.Description, Excerpt: &se.Excerpt,
			Timezone: &se.Timezone, AllDay: &se.AllDay, StartDate: &se.StartDate, EndDate: &se.EndDate, CurrencySymbol: &se.CostDetails.CurrencySymbol, CurrencyCode: &se.CostDetails.CurrencyCode,
			CurrencyPosition: &se.CostDetails.CurrencyPosition, ShowMap: &se.ShowMap, ShowMapLink: &se.ShowMapLink,
			HideFromListings: &se.HideFromListings, Sticky: &se.Sticky, Featured: &se.Featured, Lang: lang,
			Categories: termRefs(cats), Tags: termRefs(tags), Venues: linkRefs[models.VenueInput](venues),
			Organizers: linkRefs[models.OrganizerInput](organizers)}
		if slug != "" {
			in.Slug = &slug
		}
		if website != "" || id != 0 {
			in.Website = &website // none stays none: the page's address is shown
		}
		cost := costOf(&se)
		in.Cost = &cost
		if rule != "" || id != 0 {
			in.Recurrence = &rule
		}
		if err := im.post(ctx, &in.PostInput, &se.srcPost, &in.ImageURL, img); err != nil {
			return 0, err
		}
		var e *models.Event
		if id == 0 {
			e, err = im.db.CreateEvent(ctx, im.opt.User, in)
		} else {
			in.Scope = models.ScopeAll
			e, err = im.db.UpdateEvent(ctx, im.opt.User, models.ByID(id), in)
		}
		if err != nil {
			return 0, err
		}
		if err := im.setSlug(ctx, models.KindEvent, e.ID, e.Slug, slug); err != nil {
			return e.ID, err
		}
		for _, tr := range trs {
			tin := models.EventInput{Title: &tr.Title, Description: &tr.Description, Excerpt: &tr.Excerpt, Lang: tr.Lang}
			if rule != "" {
				tin.Scope = models.ScopeAll
			}
			if _, err := im.db.UpdateEvent(ctx, im.opt.User, models.ByID(e.ID), tin); err != nil {
				return e.ID, fmt.Errorf("%s translation: %w", tr.Lang, err)
			}
		}
		return e.ID, nil
	})
	if err != nil {
		im.rep.fail("event", srcURL, err)
	}
}

// linked is the id here of an event's venue or organizer, imported from
// the object the event embeds when the list did not show it.
func (im *importer) linked(ctx context.Context, kind string, raw json.RawMessage) (int64, error) {
	var head struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.ID == 0 {
		return 0, fmt.Errorf("not a %s", kind)
	}
	if id := im.local(kind, head.ID); id != 0 || im.opt.DryRun {
		return id, nil
	}
	if kind == "venue" {
		return im.venue(ctx, raw, nil)
	}
	return im.organizer(ctx, raw, nil)
}

// costNumber is a number in a cost text, with "," or "." separators
// (models' rule).
var costNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// costOf is the cost as the API takes it. TEC's answer has the cost
// formatted (with its currency and, for a range, only the lowest and
// highest) and cost_details.values parsed (every value, bare): a cost of
// words ("Free", "Donation") is its text; otherwise the values, each
// written as the text writes it ("1,000", not "1000") when it shows.
func costOf(se *srcEvent) string {
	v := se.CostDetails.Values
	numeric := false
	for _, x := range v {
		if _, ok := costFloat(x); ok {
			numeric = true
		}
	}
	if !numeric {
		return models.EncodeCost(strings.TrimSpace(se.Cost))
	}
	written := map[float64]string{}
	for _, tok := range costNumber.FindAllString(se.Cost, -1) {
		if f, ok := costFloat(tok); ok {
			written[f] = tok
		}
	}
	list := make([]any, len(v))
	for i, x := range v {
		list[i] = x
		if f, ok := costFloat(x); ok && written[f] != "" {
			list[i] = written[f]
		}
	}
	if len(list) == 1 {
		return models.EncodeCost(list[0])
	}
	return models.EncodeCost(list)
}

// costFloat reads a number of a cost: the last separator followed by one
// or two digits is the decimal point, any other groups thousands.
func costFloat(s string) (float64, bool) {
	drop := strings.NewReplacer(".", "", ",", "")
	if last := strings.LastIndexAny(s, ".,"); last >= 0 && len(s)-last-1 <= 2 {
		s = drop.Replace(s[:last]) + "." + s[last+1:]
	} else {
		s = drop.Replace(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func termRefs(ids []int64) *[]models.TermRef {
	out := make([]models.TermRef, len(ids))
	for i, id := range ids {
		out[i] = models.TermRef{ID: id}
	}
	return &out
}

func linkRefs[In any](ids []int64) *[]models.LinkRef[In] {
	out := make([]models.LinkRef[In], len(ids))
	for i, id := range ids {
		out[i] = models.LinkRef[In]{ID: id}
	}
	return &out
}
