package models

import (
	"errors"
	"fmt"
)

// ErrForbidden means the acting user may not do what was asked. Every operation
// returns it (as a *ForbiddenError) by itself; adapters only choose how to
// show it.
var ErrForbidden = errors.New("models: forbidden")

// Refusal says why an operation refused its caller.
type Refusal string

// The refusals of SPEC §6.
const (
	// RefusalNotAllowed: the caller's role may not do this at all
	// (anonymous writes, a subscriber creating, a contributor managing
	// categories, anyone but editors deleting for good).
	RefusalNotAllowed Refusal = "not_allowed"
	// RefusalNotOwner: contributors and authors change only their own records.
	RefusalNotOwner Refusal = "not_owner"
	// RefusalPublished: contributors may not change a record once it is
	// published or scheduled (they may not publish).
	RefusalPublished Refusal = "published"
	// RefusalAssignAuthor: only editors and administrators write a record
	// in another user's name.
	RefusalAssignAuthor Refusal = "assign_author"
	// RefusalNotAccessible: the record is not published and the caller may
	// not read it.
	RefusalNotAccessible Refusal = "not_accessible"
	// RefusalNoLongerAvailable: the event is in the trash and can no longer
	// be read.
	RefusalNoLongerAvailable Refusal = "no_longer_available"
	// RefusalInTrash: the record is already in the trash (to delete it, do
	// so for good).
	RefusalInTrash Refusal = "in_trash"
	// RefusalUsesNotEditable: an image is deleted "with unlink" while
	// records the caller may not edit show it (Data: Count).
	RefusalUsesNotEditable Refusal = "uses_not_editable"
)

// ForbiddenError is an operation's refusal: which kind of record, why, and
// whether the caller was signed in (the API answers 401 to anonymous
// callers and 403 to others). It matches ErrForbidden.
type ForbiddenError struct {
	Kind     Kind
	Reason   Refusal
	SignedIn bool
	// Data fills the placeholders of the message (nil for most).
	Data map[string]any
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("models: forbidden: %s on %s", e.Reason, e.Kind)
}

// Unwrap makes a ForbiddenError match ErrForbidden.
func (e *ForbiddenError) Unwrap() error { return ErrForbidden }

// MessageID is the i18n message that explains the refusal, the same in the
// API and the admin.
func (e *ForbiddenError) MessageID() string {
	if id, ok := refusalMessages[refusalKey{e.Reason, e.Kind}]; ok {
		return id
	}
	if !e.SignedIn {
		return "error.rest_forbidden.anonymous"
	}
	return "error.rest_forbidden.user"
}

type refusalKey struct {
	reason Refusal
	kind   Kind
}

// refusalMessages names the messages of refusals that say more than "not
// allowed"; the rest read "sign in" or "your account may not".
var refusalMessages = map[refusalKey]string{
	{RefusalNotAccessible, KindEvent}:     "error.event-not-accessible",
	{RefusalNotAccessible, KindVenue}:     "error.venue-not-accessible",
	{RefusalNotAccessible, KindOrganizer}: "error.organizer-not-accessible",
	{RefusalNoLongerAvailable, KindEvent}: "error.event-no-longer-available",
	{RefusalInTrash, KindEvent}:           "error.event-is-in-trash",
	{RefusalInTrash, KindVenue}:           "error.venue-is-in-trash",
	{RefusalInTrash, KindOrganizer}:       "error.organizer-is-in-trash",
	{RefusalUsesNotEditable, KindMedia}:   "media.error.uses_not_editable",
}

// refuse builds the refusal of u.
func refuse(u *User, k Kind, why Refusal) *ForbiddenError {
	return &ForbiddenError{Kind: k, Reason: why, SignedIn: u != nil}
}
