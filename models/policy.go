package models

// Role is a user's role (SPEC §6), from least to most powerful.
type Role string

// The five roles.
const (
	RoleSubscriber    Role = "subscriber"
	RoleContributor   Role = "contributor"
	RoleAuthor        Role = "author"
	RoleEditor        Role = "editor"
	RoleAdministrator Role = "administrator"
)

// Roles lists the roles from least to most powerful.
var Roles = []Role{RoleSubscriber, RoleContributor, RoleAuthor, RoleEditor, RoleAdministrator}

// ValidRole reports whether r is a role.
func ValidRole(r Role) bool { return r.rank() > 0 }

func (r Role) rank() int {
	for i, v := range Roles {
		if v == r {
			return i + 1
		}
	}
	return 0
}

// AtLeast reports whether r is min or more powerful.
func (r Role) AtLeast(min Role) bool { return r.rank() >= min.rank() && r.rank() > 0 }

// Action is something a user may try on a record.
type Action string

// Actions checked by Can.
const (
	ActRead          Action = "read"           // see a record that is not published
	ActCreate        Action = "create"         // create a record of the kind
	ActEdit          Action = "edit"           // update a record
	ActPublish       Action = "publish"        // set publish/future status
	ActTrash         Action = "trash"          // move to the trash
	ActForceDelete   Action = "force_delete"   // delete for good
	ActManageUsers   Action = "manage_users"   // users and others' application passwords
	ActManageOptions Action = "manage_options" // the site's settings (WordPress's manage_options)
)

// Subject describes the record an action is about. For ActCreate and general
// checks (no record yet) leave AuthorID zero and Status empty.
type Subject struct {
	Kind     Kind
	AuthorID int64
	Status   string
}

// Can is the permission policy of SPEC §6 in one place: may user u (nil for
// an anonymous caller) do act on subject s?
func Can(u *User, act Action, s Subject) bool {
	if act == ActRead && s.Status == StatusPublish {
		return true
	}
	if u == nil || !ValidRole(u.Role) {
		return false
	}
	role := u.Role
	own := s.AuthorID != 0 && s.AuthorID == u.ID
	if act == ActManageUsers || act == ActManageOptions {
		return role == RoleAdministrator
	}
	switch s.Kind {
	case KindMedia: // WordPress's upload_files: authors and up; an image
		// is changed or deleted by its uploader or an editor (edit_post and
		// delete_post on the attachment)
		if act == ActEdit || act == ActTrash || act == ActForceDelete {
			return role.AtLeast(RoleEditor) || (role.AtLeast(RoleAuthor) && own)
		}
		return role.AtLeast(RoleAuthor)
	case KindCategory: // authors manage categories (TEC: publish_tribe_events)
		if act == ActRead {
			return true
		}
		return role.AtLeast(RoleAuthor)
	case KindTag: // tags need manage_categories: editors
		if act == ActRead {
			return true
		}
		return role.AtLeast(RoleEditor)
	}
	if role.AtLeast(RoleEditor) {
		return true
	}
	published := s.Status == StatusPublish || s.Status == StatusFuture
	switch act {
	case ActRead:
		// Contributors and authors read their own records in any status.
		return role.AtLeast(RoleContributor) && own
	case ActCreate:
		return role.AtLeast(RoleContributor)
	case ActPublish:
		return role.AtLeast(RoleAuthor)
	case ActEdit, ActTrash:
		if !own {
			return false
		}
		if role == RoleAuthor {
			return true
		}
		return role == RoleContributor && !published
	}
	return false // ActForceDelete and anything unknown: editors only
}

// EffectiveStatus applies the contributor scale-back (SPEC §6, TEC §2.4) to a
// requested status on create or update: users who may publish get what they
// asked for (publish when they asked nothing); others get pending instead of
// publish/future, what they asked otherwise, and draft when they asked nothing.
func EffectiveStatus(u *User, kind Kind, requested string) string {
	if Can(u, ActPublish, Subject{Kind: kind}) {
		if requested == "" {
			return StatusPublish
		}
		return requested
	}
	switch requested {
	case "":
		return StatusDraft
	case StatusPublish, StatusFuture:
		return StatusPending
	}
	return requested
}

// Visibility says which records a list shows to a user when no status
// filter is given (SPEC §6).
type Visibility struct {
	// AllButTrash: every status but trash (editors and administrators).
	AllButTrash bool
	// OwnerID, when non-zero: published records plus this user's own records
	// in any status but trash (contributors and authors).
	OwnerID int64
	// Otherwise: published records only (anonymous callers and subscribers).
}

// ListVisibility returns the default list visibility of u.
func ListVisibility(u *User) Visibility {
	switch {
	case u == nil || !ValidRole(u.Role):
		return Visibility{}
	case u.Role.AtLeast(RoleEditor):
		return Visibility{AllButTrash: true}
	case u.Role.AtLeast(RoleContributor):
		return Visibility{OwnerID: u.ID}
	}
	return Visibility{}
}

// MayFilterStatus reports whether u may ask a list for statuses other than
// publish (anonymous callers and subscribers may not: 400).
func MayFilterStatus(u *User) bool { return u != nil && u.Role.AtLeast(RoleContributor) }

// MayAttempt reports whether u's role allows act on some record of kind k:
// the general capability, checked before any record is read (so a caller
// who may not write learns nothing about what exists, SPEC §9). Reading is
// always possible (published records); edit and trash need a role that may
// change at least its own unpublished records. The record itself is then
// checked with Can.
func MayAttempt(u *User, act Action, k Kind) bool {
	if act == ActRead {
		return true
	}
	if u == nil {
		return false
	}
	return Can(u, act, Subject{Kind: k, AuthorID: u.ID, Status: StatusDraft})
}

// attempt is MayAttempt as the error every operation returns first.
func attempt(u *User, act Action, k Kind) error {
	if MayAttempt(u, act, k) {
		return nil
	}
	return refuse(u, k, RefusalNotAllowed)
}

// authorize is Can on one record as an error that says why: not accessible
// (reads), not the caller's own, published (contributors), or not allowed.
func authorize(u *User, act Action, s Subject) error {
	if Can(u, act, s) {
		return nil
	}
	switch {
	case act == ActRead:
		return refuse(u, s.Kind, RefusalNotAccessible)
	case act == ActForceDelete || !MayAttempt(u, act, s.Kind):
		return refuse(u, s.Kind, RefusalNotAllowed)
	case s.AuthorID != u.ID:
		return refuse(u, s.Kind, RefusalNotOwner)
	}
	return refuse(u, s.Kind, RefusalPublished)
}

// mayAssignAuthor applies WordPress's edit_others_posts: only editors and
// administrators create or change a record in another user's name.
func mayAssignAuthor(u *User, k Kind, author *int64) error {
	if author == nil || (u != nil && (*author == u.ID || u.Role.AtLeast(RoleEditor))) {
		return nil
	}
	return refuse(u, k, RefusalAssignAuthor)
}

// subject describes a post-like record of kind k for Can.
func (p *Post) subject(k Kind) Subject {
	return Subject{Kind: k, AuthorID: p.AuthorID, Status: p.Status}
}

// ReviewQueue says which drafts and pending events u has to review: none
// (anonymous callers, subscribers), their own (contributors, authors) or
// everyone's (editors and administrators). Lists with those statuses
// apply it by themselves; the admin uses it to show or word its queue.
func ReviewQueue(u *User) (reviews, everyone bool) {
	return MayFilterStatus(u), u != nil && u.Role.AtLeast(RoleEditor)
}

// MayManageSettings reports whether u changes the site's settings
// (administrators).
func MayManageSettings(u *User) bool { return Can(u, ActManageOptions, Subject{Kind: KindSettings}) }

// MayManageUsers reports whether u manages users and others' application
// passwords (administrators).
func MayManageUsers(u *User) bool { return Can(u, ActManageUsers, Subject{Kind: KindUser}) }

// StatusChoices are the statuses u may give a record of kind k in a form,
// in the order a form lists them: what EffectiveStatus keeps as asked.
// Users who may publish choose among every status but trash; the others
// among draft and pending (asking for publish would give pending anyway).
func StatusChoices(u *User, k Kind) []string {
	if Can(u, ActPublish, Subject{Kind: k}) {
		return []string{StatusDraft, StatusPending, StatusPublish, StatusFuture, StatusPrivate}
	}
	if MayAttempt(u, ActCreate, k) {
		return []string{StatusDraft, StatusPending}
	}
	return nil
}

// AdminListAccess says what the admin's lists of kind k offer u: whether
// u may create records, see drafts and the trash (any status filter), and
// delete for good. The operations check every record again; this only
// decides which controls a page shows.
type AdminListAccess struct {
	Create, Statuses, Delete bool
}

// ListAccess returns what the admin's list of kind k offers u.
func ListAccess(u *User, k Kind) AdminListAccess {
	return AdminListAccess{
		Create:   MayAttempt(u, ActCreate, k),
		Statuses: MayFilterStatus(u),
		Delete:   Can(u, ActForceDelete, Subject{Kind: k}),
	}
}

// TermAdminAccess says what the admin's pages of a taxonomy offer u:
// creating terms, editing them (and their translations), and deleting
// them for good. Terms are public, so everyone may read them. The term
// operations check again; this only decides which controls a page shows.
type TermAdminAccess struct {
	Create, Edit, Delete bool
}

// TermAccess returns what the admin's pages of the taxonomy (TaxCategory
// or TaxTag) offer u: the same general capabilities CreateTerm,
// UpdateTerm and DeleteTerm check first (authors and up manage
// categories, editors and up tags).
func TermAccess(u *User, taxonomy string) TermAdminAccess {
	k := TaxonomyKind(taxonomy)
	edit := MayAttempt(u, ActEdit, k)
	return TermAdminAccess{Create: MayAttempt(u, ActCreate, k), Edit: edit, Delete: edit}
}

// Edit scopes of EditScope.
const (
	EditAll            = "all"             // every record (editors and up)
	EditOwn            = "own"             // own records in any status (authors)
	EditOwnUnpublished = "own_unpublished" // own records not yet published or scheduled (contributors)
)

// EditScope says which records of kind k u may change, for interfaces
// that offer a change before asking (the calendar lets users drag only
// those): EditAll, EditOwn, EditOwnUnpublished or "" (none). It restates
// Can's edit rule; the operations still check each record.
func EditScope(u *User, k Kind) string {
	mine := Subject{Kind: k, AuthorID: -1, Status: StatusDraft}
	if u != nil {
		mine.AuthorID = u.ID
	}
	switch {
	case Can(u, ActEdit, Subject{Kind: k, AuthorID: -1, Status: StatusPublish}):
		return EditAll
	case Can(u, ActEdit, Subject{Kind: k, AuthorID: mine.AuthorID, Status: StatusPublish}):
		return EditOwn
	case Can(u, ActEdit, mine):
		return EditOwnUnpublished
	}
	return ""
}

// MayUploadMedia reports whether u may upload images and see the library
// (WordPress's upload_files: authors, editors and administrators); an
// image is changed or deleted by its uploader or an editor (MayChangeMedia).
func MayUploadMedia(u *User) bool { return Can(u, ActCreate, Subject{Kind: KindMedia}) }

// MayChangeMedia reports whether u may change the texts of image m or
// delete it: its uploader (an author or more) or an editor.
func MayChangeMedia(u *User, m *Media) bool {
	return Can(u, ActEdit, Subject{Kind: KindMedia, AuthorID: m.AuthorID})
}
