package api

import (
	"fmt"
	"net/http"
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
	Invalid []Invalid
	Cause   error
}

// Invalid is one invalid argument and why.
type Invalid struct {
	Name   string
	Reason Reason
}

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

// ErrNoRoute: no route or no such method on the route (404, as WordPress).
func ErrNoRoute() *Error {
	return NewError(http.StatusNotFound, "rest_no_route", "error.rest_no_route")
}

// ErrForbidden: 401 for an anonymous caller, 403 for a signed-in one.
func ErrForbidden(r *Request) *Error {
	if r == nil || r.User == nil {
		return NewError(http.StatusUnauthorized, "rest_forbidden", "error.rest_forbidden.anonymous")
	}
	return NewError(http.StatusForbidden, "rest_forbidden", "error.rest_forbidden.user")
}

// ErrInvalidParam reports one invalid argument (400 rest_invalid_param).
func ErrInvalidParam(name string, reason Reason) *Error {
	e := NewError(http.StatusBadRequest, "rest_invalid_param", "error.rest_invalid_param")
	e.Invalid = []Invalid{{Name: name, Reason: reason}}
	return e
}

// ErrInternal: 500 without detail; cause is logged only.
func ErrInternal(cause error) *Error {
	e := NewError(http.StatusInternalServerError, "internal_server_error", "error.internal_server_error")
	e.Cause = cause
	return e
}

// ErrUnavailable: the database does not answer (503).
func ErrUnavailable(cause error) *Error {
	e := NewError(http.StatusServiceUnavailable, "service_unavailable", "error.service_unavailable")
	e.Cause = cause
	return e
}
