package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/admission"
	"github.com/kalends/kalends/models"
)

// Error is an API error in the WordPress shape
// {"code": …, "message": …, "data": {"status": N, …}}. The message is a
// message id, localized when the error is rendered; Cause (never shown to
// the client) is logged.
type Error struct {
	Status  int
	Code    string
	MsgID   string
	MsgData map[string]any
	// Data holds extra members of "data" after "status", in order.
	Data Obj
	// Missing lists required arguments that were not sent
	// (rest_missing_callback_param: data.params is this list).
	Missing []string
	// Invalid lists invalid arguments in declaration order
	// (rest_invalid_param: data.params maps name to the localized reason,
	// data.details name to {code, message, data}).
	Invalid []models.FieldError
	// Additional is WordPress's top-level additional_data (term_exists:
	// [term_id, term_taxonomy_id]); nil leaves it out.
	Additional []any
	Cause      error
}

// Reason says why one argument is invalid: the validation error of the
// models, whose Field the pipeline fills with the argument's name.
type Reason = models.FieldError

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("api: %d %s: %v", e.Status, e.Code, e.Cause)
	}
	return fmt.Sprintf("api: %d %s", e.Status, e.Code)
}

func (e *Error) Unwrap() error { return e.Cause }

// With returns e with one more member of data.
func (e *Error) With(key string, v any) *Error {
	e.Data = append(e.Data, KV{key, v})
	return e
}

// NewError builds an error with a status, a stable code and a message id.
func NewError(status int, code, msgID string) *Error {
	return &Error{Status: status, Code: code, MsgID: msgID}
}

// ErrNoRoute is the 404 rest_no_route error: no route matches the path, or
// the route has no such method (as WordPress answers).
func ErrNoRoute() *Error {
	return NewError(http.StatusNotFound, "rest_no_route", "error.rest_no_route")
}

// ErrInvalidParam reports one invalid argument (400 rest_invalid_param).
func ErrInvalidParam(name string, reason Reason) *Error {
	reason.Field = name
	return invalidParams([]models.FieldError{reason})
}

// invalidParams is 400 rest_invalid_param listing fields.
func invalidParams(fields []models.FieldError) *Error {
	e := NewError(http.StatusBadRequest, "rest_invalid_param", "error.rest_invalid_param")
	e.Invalid = fields
	return e
}

// ErrInternal is the 500 error, sent without detail; cause is logged only.
func ErrInternal(cause error) *Error {
	e := NewError(http.StatusInternalServerError, "internal_server_error", "error.internal_server_error")
	e.Cause = cause
	return e
}

// ErrUnavailable is the 503 error for a database that does not answer;
// cause is kept for the log.
func ErrUnavailable(cause error) *Error {
	e := NewError(http.StatusServiceUnavailable, "service_unavailable", "error.service_unavailable")
	e.Cause = cause
	return e
}

// Wire codes of the errors that name a kind of record (TEC's).
var (
	notFoundCodes = map[models.Kind]string{
		models.KindEvent: "rest-event-not-found", models.KindVenue: "rest-venue-not-found",
		models.KindOrganizer: "rest-organizer-not-found", models.KindCategory: "rest_term_invalid", models.KindTag: "rest_term_invalid",
		models.KindMedia: "rest_post_invalid_id", models.KindRevision: "rest_post_invalid_id",
	}
	notFoundMessages = map[models.Kind]string{
		models.KindEvent: "error.rest-event-not-found", models.KindVenue: "error.rest-venue-not-found",
		models.KindOrganizer: "error.rest-organizer-not-found", models.KindCategory: "error.rest_term_invalid.categories",
		models.KindTag: "error.rest_term_invalid.tags", models.KindMedia: "media.error.not_found",
		models.KindRevision: "revision.error.not_found",
	}
	refusalCodes = map[models.Refusal]map[models.Kind]string{
		models.RefusalNotAccessible: {models.KindEvent: "event-not-accessible", models.KindVenue: "venue-not-accessible",
			models.KindOrganizer: "organizer-not-accessible"},
		models.RefusalNoLongerAvailable: {models.KindEvent: "event-no-longer-available"},
		models.RefusalInTrash: {models.KindEvent: "event-is-in-trash", models.KindVenue: "venue-is-in-trash",
			models.KindOrganizer: "organizer-is-in-trash"},
	}
	wrongKindReasons = map[models.Kind]string{
		models.KindVenue: "reason.linked.wrong_kind_venue", models.KindOrganizer: "reason.linked.wrong_kind_organizer",
	}
	linkedCreateCodes = map[models.Kind][2]string{
		models.KindVenue:     {"could-not-create-venue", "error.could-not-create-venue"},
		models.KindOrganizer: {"could-not-create-organizer", "error.could-not-create-organizer"},
	}
)

// toAPIError turns any error into an *Error, in one place: our own pass
// through; the errors of the models operations become their WordPress
// codes (a refusal, a record not found, invalid fields, …); a database
// that does not answer is 503; anything else 500.
func toAPIError(err error) *Error {
	var (
		ae *Error
		fe *models.ForbiddenError
		nf *models.NotFoundError
		wk *models.WrongKindError
		ve *models.ValidationError
		lc *models.LinkedCreateError
		te *models.TermExistsError
		fb *fiber.Error
	)
	switch {
	case errors.As(err, &ae) && ae.Status == http.StatusInternalServerError && models.IsFailover(err):
		// A server error whose cause is a database failover: 503.
		return ErrUnavailable(err)
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &fe):
		if fe.Reason == models.RefusalUsesNotEditable {
			// WordPress's code for a delete the caller may not make; data
			// counts the records in the way.
			e := NewError(http.StatusForbidden, "rest_cannot_delete", fe.MessageID())
			e.MsgData = fe.Data
			return e.With("records", fe.Data["Count"])
		}
		if code, ok := refusalCodes[fe.Reason][fe.Kind]; ok {
			status := http.StatusForbidden
			if fe.Reason == models.RefusalInTrash {
				status = http.StatusGone
			}
			return NewError(status, code, fe.MessageID())
		}
		if !fe.SignedIn {
			return NewError(http.StatusUnauthorized, "rest_forbidden", fe.MessageID())
		}
		return NewError(http.StatusForbidden, "rest_forbidden", fe.MessageID())
	case errors.As(err, &nf):
		return NewError(http.StatusNotFound, notFoundCodes[nf.Kind], notFoundMessages[nf.Kind])
	case errors.As(err, &wk):
		if reason, ok := wrongKindReasons[wk.Want]; ok {
			return ErrInvalidParam("id", Reason{Code: models.CodeInvalidParam, Reason: reason})
		}
		return NewError(http.StatusBadRequest, "rest-invalid-event-id", "error.rest-invalid-event-id")
	case errors.As(err, &lc):
		c := linkedCreateCodes[lc.Kind]
		return NewError(http.StatusBadRequest, c[0], c[1])
	case errors.As(err, &ve):
		return invalidParams(ve.Fields)
	case errors.As(err, &te):
		e := NewError(http.StatusBadRequest, "term_exists", te.MessageID())
		e.MsgData = map[string]any{"ID": te.ID}
		// WordPress clients link the existing term from these; a term's
		// taxonomy id is its id here.
		e.Additional = []any{te.ID, te.ID}
		return e.With("term_id", te.ID)
	case errors.Is(err, models.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return ErrUnavailable(err)
	case errors.Is(err, admission.ErrBusy):
		return NewError(http.StatusServiceUnavailable, "service_unavailable", "error.server_busy")
	case errors.As(err, &fb):
		switch {
		case fb.Code == http.StatusRequestEntityTooLarge:
			return NewError(fb.Code, "rest_payload_too_large", "error.rest_payload_too_large")
		case fb.Code == http.StatusUnsupportedMediaType:
			return NewError(fb.Code, "rest_unsupported_media_type", "error.rest_unsupported_media_type")
		case fb.Code == http.StatusNotFound || fb.Code == http.StatusMethodNotAllowed || fb.Code == http.StatusNotImplemented:
			return ErrNoRoute()
		case fb.Code == http.StatusServiceUnavailable:
			return ErrUnavailable(err)
		case fb.Code >= 400 && fb.Code < 500:
			return NewError(fb.Code, "rest_bad_request", "error.rest_bad_request")
		}
	}
	return ErrInternal(err)
}

// refusal is the dispatcher's answer to a caller without the endpoint's
// general capability: the same refusal the models operation would give.
func refusal(r *Request, k models.Kind) error {
	return &models.ForbiddenError{Kind: k, Reason: models.RefusalNotAllowed, SignedIn: r.User != nil}
}

// archiveNotFound is the 404 of a list page past the last one (TEC's codes).
func archiveNotFound(k models.Kind) *Error {
	switch k {
	case models.KindVenue:
		return NewError(http.StatusNotFound, "venue-archive-page-not-found", "error.venue-archive-page-not-found")
	case models.KindOrganizer:
		return NewError(http.StatusNotFound, "organizer-archive-page-not-found", "error.organizer-archive-page-not-found")
	}
	return NewError(http.StatusNotFound, "event-archive-page-not-found", "error.event-archive-page-not-found")
}
