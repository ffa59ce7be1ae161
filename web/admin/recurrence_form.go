package admin

import (
	"errors"
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

// previewDates is how many dates the preview lists.
const previewDates = 10

// eventRepeatPreview answers the form's preview (htmx, on every change of
// the rule, the start or the zone).
func (h *handler) eventRepeatPreview(c *fiber.Ctx) error {
	lay := h.layoutFor(c, "admin.events.edit")
	f := readEventForm(c)
	text := f.Repeat.Text(f.StartDate)
	var p repeatPreview
	rule, starts, err := h.d.DB.PreviewRecurrence(text, f.Timezone, ui.FormDate(f.StartDate), previewDates)
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
