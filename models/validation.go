package models

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid marks input that breaks a rule of the store. Validation failures
// come as a *ValidationError, which matches it.
var ErrInvalid = errors.New("models: invalid input")

// FieldError says why one input field is invalid: the field (named as the
// API argument and the admin form field), the reason as an i18n message id
// with its template data, and a stable machine code for clients
// (rest_invalid_param unless a more precise one applies: rest_invalid_type,
// rest_not_in_enum, rest_out_of_bounds, rest_too_long, rest_too_many_items).
type FieldError struct {
	Field  string
	Code   string
	Reason string
	Data   map[string]any
	// Err is the underlying cause, never shown (errors.Is sees it through
	// the ValidationError).
	Err error
}

// ValidationError lists the invalid fields of one input, in the order the
// fields are declared. It matches ErrInvalid and each field's cause. The API
// answers it with 400 rest_invalid_param; the admin shows each message next
// to its field.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Reason
		if f.Err != nil {
			parts[i] += " (" + f.Err.Error() + ")"
		}
	}
	return "models: invalid " + strings.Join(parts, "; ")
}

// Unwrap exposes ErrInvalid and the causes of the fields.
func (e *ValidationError) Unwrap() []error {
	out := []error{ErrInvalid}
	for _, f := range e.Fields {
		if f.Err != nil {
			out = append(out, f.Err)
		}
	}
	return out
}

// Field returns the error of the named field, or nil.
func (e *ValidationError) Field(name string) *FieldError {
	for i := range e.Fields {
		if e.Fields[i].Field == name {
			return &e.Fields[i]
		}
	}
	return nil
}

// Invalid reports one invalid field (code rest_invalid_param).
func Invalid(field, reason string, data map[string]any) *ValidationError {
	return &ValidationError{Fields: []FieldError{{Field: field, Code: CodeInvalidParam, Reason: reason, Data: data}}}
}

// invalidBecause is Invalid with a cause kept for errors.Is and the logs.
func invalidBecause(field, reason string, data map[string]any, cause error) *ValidationError {
	v := Invalid(field, reason, data)
	v.Fields[0].Err = cause
	return v
}

// joinInvalid merges the validation errors among errs into one, fields in
// order; nil when all are nil. Any other error wins, as it is.
func joinInvalid(errs ...error) error {
	var all *ValidationError
	for _, err := range errs {
		if err == nil {
			continue
		}
		var v *ValidationError
		if !errors.As(err, &v) {
			return err
		}
		if all == nil {
			all = &ValidationError{}
		}
		all.Fields = append(all.Fields, v.Fields...)
	}
	if all == nil {
		return nil
	}
	return all
}

// CodeInvalidParam is the machine code of a field that breaks a rule.
const CodeInvalidParam = "rest_invalid_param"

// NotFoundError reports that no record of Kind has the id or slug asked for. It
// matches ErrNotFound.
type NotFoundError struct {
	Kind Kind
	Ref  Ref
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("models: no %s %s", e.Kind, e.Ref) }

// Unwrap makes a NotFoundError match ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// WrongKindError reports that the id names a record of another kind (a venue's id on an
// event route). It matches ErrInvalid.
type WrongKindError struct {
	Want, Got Kind
	ID        int64
}

func (e *WrongKindError) Error() string {
	return fmt.Sprintf("models: %d is a %s, not a %s", e.ID, e.Got, e.Want)
}

// Unwrap makes a WrongKindError match ErrInvalid.
func (e *WrongKindError) Unwrap() error { return ErrInvalid }

// LinkedCreateError reports that a venue or organizer given inline in an event could
// not be created (TEC's could-not-create-venue). It matches ErrInvalid and
// the cause.
type LinkedCreateError struct {
	Kind Kind
	Err  error
}

func (e *LinkedCreateError) Error() string {
	return fmt.Sprintf("models: could not create the inline %s: %v", e.Kind, e.Err)
}

// Unwrap exposes ErrInvalid and the cause.
func (e *LinkedCreateError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// Ref names a record by id or, when ID is 0, by slug.
type Ref struct {
	ID   int64
	Slug string
}

// ByID names the record with id.
func ByID(id int64) Ref { return Ref{ID: id} }

// BySlug names the record with slug, composed (NFC) as stored slugs are,
// so a slug sent decomposed finds its record.
func BySlug(slug string) Ref { return Ref{Slug: NFC(slug)} }

func (r Ref) String() string {
	if r.Slug != "" || r.ID == 0 {
		return fmt.Sprintf("%q", r.Slug)
	}
	return fmt.Sprint(r.ID)
}
