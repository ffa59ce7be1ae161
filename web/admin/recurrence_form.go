package admin

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/rrtext"
	"github.com/kalends/kalends/models"

	"github.com/kalends/kalends/web/ui"
)

// The recurrence editor of the event form: a rule built from a few
// choices (how often, every how many, which weekdays, which day of the
// month, until when), extra dates and exclusions, or, for what the
// choices cannot say, the RFC 5545 text itself. A preview (htmx) shows the
// rule's sentence and its first dates before anything is saved.

// readRepeatForm reads the recurrence fields of a posted event form.
func readRepeatForm(c *fiber.Ctx) repeatForm {
	var days []string
	for _, v := range c.Request().PostArgs().PeekMulti("repeat_day") {
		days = append(days, string(v))
	}
	return repeatForm{Freq: c.FormValue("repeat_freq"), Interval: strings.TrimSpace(c.FormValue("repeat_interval")), Days: days,
		Monthly: c.FormValue("repeat_monthly"), End: c.FormValue("repeat_end"), Until: c.FormValue("repeat_until"),
		Count: strings.TrimSpace(c.FormValue("repeat_count")), Extra: c.FormValue("repeat_extra"),
		Except: c.FormValue("repeat_except"), Custom: c.FormValue("repeat_custom"),
		Occurrence: c.FormValue("repeat_occurrence") != "", Scope: c.FormValue("scope")}
}

// text is the rule the choices make, as RFC 5545 lines ("" for none);
// start is the form's start date, which places "the 2nd Tuesday".
func (r repeatForm) text(start string) string {
	var lines []string
	switch r.Freq {
	case "":
		return ""
	case "custom":
		return r.Custom
	}
	parts := []string{"FREQ=" + r.Freq}
	if r.Interval != "" && r.Interval != "1" {
		parts = append(parts, "INTERVAL="+r.Interval)
	}
	day, weekday := startDay(start)
	switch r.Freq {
	case "WEEKLY":
		if len(r.Days) > 0 {
			parts = append(parts, "BYDAY="+strings.Join(r.Days, ","))
		}
	case "MONTHLY":
		switch {
		case r.Monthly == "nth" && day > 0:
			parts = append(parts, "BYDAY="+strconv.Itoa((day-1)/7+1)+weekday)
		case r.Monthly == "last" && day > 0:
			parts = append(parts, "BYDAY=-1"+weekday)
		}
	}
	switch r.End {
	case "until":
		parts = append(parts, "UNTIL="+strings.ReplaceAll(strings.TrimSpace(r.Until), "-", ""))
	case "count":
		parts = append(parts, "COUNT="+r.Count)
	}
	lines = append(lines, "RRULE:"+strings.Join(parts, ";"))
	for _, l := range dateLines(r.Extra) {
		lines = append(lines, "RDATE:"+l)
	}
	for _, l := range dateLines(r.Except) {
		lines = append(lines, "EXDATE:"+l)
	}
	return strings.Join(lines, "\n")
}

// dateLines are the non-empty lines of a dates field.
func dateLines(s string) []string {
	var out []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == '、' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, formDate(l))
		}
	}
	return out
}

// startDay is the day of the month and the weekday code of a form's
// start date (0 and "" when it is not a date).
func startDay(start string) (int, string) {
	t, err := time.Parse(time.DateOnly, strings.TrimSpace(start)[:min(10, len(strings.TrimSpace(start)))])
	if err != nil {
		return 0, ""
	}
	return t.Day(), rrtext.Weekday(t)
}

// repeatFormOf fills the recurrence fields from a stored event: the
// choices when they say its rule exactly, the rule's text otherwise.
func repeatFormOf(e *models.Event, loc *time.Location) repeatForm {
	r := repeatForm{Interval: "1", End: "never", Monthly: "day", Occurrence: e.IsOccurrence(), Scope: models.ScopeThis}
	rule := e.SeriesRule
	if rule == nil || rule.Empty() {
		return r
	}
	layout := "2006-01-02 15:04"
	if e.AllDay {
		layout = time.DateOnly
	}
	var extra, except []string
	for _, d := range rule.RDates {
		extra = append(extra, d.In(loc).Format(layout))
	}
	for _, d := range rule.ExDates {
		except = append(except, d.In(loc).Format(layout))
	}
	r.Extra, r.Except = strings.Join(extra, "\n"), strings.Join(except, "\n")
	if len(rule.RRules) != 1 || !r.choices(rule.RRules[0], e.SeriesStart) {
		r = repeatForm{Interval: "1", End: "never", Monthly: "day", Occurrence: r.Occurrence, Scope: r.Scope,
			Freq: "custom", Custom: rule.String()}
	}
	return r
}

// choices sets the fields from rule and reports whether they say it
// exactly.
func (r *repeatForm) choices(rule string, start time.Time) bool {
	for _, p := range strings.Split(rule, ";") {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "FREQ":
			r.Freq = v
		case "INTERVAL":
			r.Interval = v
		case "COUNT":
			r.End, r.Count = "count", v
		case "UNTIL":
			t, err := time.Parse("20060102T150405Z", v)
			if err != nil {
				return false
			}
			r.End, r.Until = "until", t.In(start.Location()).Format(time.DateOnly)
		case "BYDAY":
			r.Days = strings.Split(v, ",")
		default:
			return false
		}
	}
	if len(r.Days) == 0 {
		return true
	}
	day := rrtext.Weekday(start)
	switch r.Freq {
	case "WEEKLY":
		for _, d := range r.Days {
			if rrtext.DayMessage(d) == "" {
				return false
			}
		}
		return true
	case "MONTHLY":
		if len(r.Days) != 1 {
			return false
		}
		switch r.Days[0] {
		case strconv.Itoa((start.Day()-1)/7+1) + day:
			r.Monthly = "nth"
		case "-1" + day:
			r.Monthly = "last"
		default:
			return false
		}
		r.Days = nil
		return true
	}
	return false
}

// previewDates is how many dates the preview lists.
const previewDates = 10

// eventRepeatPreview answers the form's preview (htmx, on every change of
// the rule, the start or the zone).
func (h *handler) eventRepeatPreview(c *fiber.Ctx) error {
	lay := h.layoutFor(c, "admin.events.edit")
	f := readEventForm(c)
	text := f.Repeat.text(f.StartDate)
	var p repeatPreview
	rule, starts, err := h.d.DB.PreviewRecurrence(text, f.Timezone, formDate(f.StartDate), previewDates)
	var ve *models.ValidationError
	switch {
	case errors.As(err, &ve):
		p.Error = h.d.I18n.T(lay.Lang, ve.Fields[0].Reason, ve.Fields[0].Data)
	case err != nil:
		return err
	case rule != nil && !rule.Empty():
		t := func(id string, data map[string]any) string { return lay.TD(id, data) }
		p.Sentence = rrtext.Rule(t, rule, starts[0], func(d time.Time) string { return ui.FormatDate(lay.Lang, d) })
		for _, s := range starts {
			if f.AllDay {
				p.Dates = append(p.Dates, ui.FormatDate(lay.Lang, s))
			} else {
				p.Dates = append(p.Dates, ui.FormatDateTime(lay.Lang, s))
			}
		}
	}
	return render(c, fiber.StatusOK, repeatPreviewBlock(lay, p))
}

// repeatFreqLabel is the message of a choice of how often.
func repeatFreqLabel(freq string) string {
	switch freq {
	case "":
		return "admin.repeat.freq.none"
	case "custom":
		return "admin.repeat.freq.custom"
	}
	return "admin.repeat.freq." + strings.ToLower(freq)
}
