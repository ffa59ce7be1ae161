package admin

// The values the admin's templ components render: handlers fill them, the
// components read them, and neither side is needed to read this file.

import (
	"github.com/kalends/kalends/internal/ical"
	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/web/ui"
)

// appPasswordsView is the application passwords section of the profile
// and of a user's edit page.
type appPasswordsView struct {
	Action     string // where the create form posts; revoke forms post below it
	Rows       []appPasswordRow
	Name       string // the name typed, kept after an error
	Secret     string // the password just created, shown this once
	SecretName string
}

// calendarView is the calendar page.
type calendarView struct {
	Layout     layoutView
	Subscribe  string // webcal:// feed of the published events the filters select
	View, Date string
	FCLocale   string
	Zone       string
	API        string
	PerPage    string
	Scope      string
	UserID     string
	MayFilter  bool
	MayCreate  bool
	Q          calendarQuery
	Views      []option
	Categories []option
	Tags       []option
	Venues     []option
	Organizers []option
	Statuses   []option
	Rows       []eventRow // the range without JavaScript
	RangeText  string
	Quick      []option // status choices of the quick-create form
	BackHref   string
	PrevHref   string // the table's previous and next range
	NextHref   string
	MoveBack   string // url-encoded BackHref for the move links
	// FilterError says why the filters select nothing: one cannot be
	// read, or names nothing.
	FilterError string
}

// moveView is the page that changes an event's dates without dragging.
type moveView struct {
	Layout     layoutView
	ID         int64
	EventTitle string
	F          eventForm
	Zone       string
	Back       string
	Errors     formErrors
}

// docsView is the API documentation page: Swagger UI over the API's /doc
// in the UI language. The signed-in user's nonce goes with every request
// Swagger UI makes ("try it out"), so calls run as that user.
type docsView struct {
	Layout  layoutView
	SpecURL string
	RawURL  string
}

// eventFormView is the create or edit page of an event.
type eventFormView struct {
	Layout layoutView
	// Library: the image field offers the media library's picker.
	Library bool
	// PreviewAction is where the Preview button posts the form (web/site).
	PreviewAction string
	Revisions     revisionsView // of a stored event
	F             eventForm
	ID            int64 // 0 for a new event
	Action        string
	Errors        formErrors
	Statuses      []option
	Venues        []option
	Organizers    []option
	Categories    []option
	Tags          []option
	Zones         []string
	SiteZone      string
	Conflict      *conflictView
	JSONURL       string
	Trashed       bool
	Langs         []translationLink
	Access        models.AdminListAccess
	StatusName    string
}

// translationView is the side-by-side translation page of an event.
type translationView struct {
	Layout      layoutView
	ID          int64
	Lang        string // the language being written
	LangName    string
	LangTag     string
	SourceName  string
	SourceTag   string
	Source      eventForm // the source text, read-only
	T           eventForm // the translation (title, description, excerpt)
	Missing     map[string]bool
	Errors      formErrors
	Action      string
	EditHref    string
	Langs       []translationLink
	RecordTitle string
}

// eventListRow is one event of the list.
type eventListRow struct {
	eventRow
	Hidden, Featured bool
	Categories       string
	Trashed          bool
	// Series: the event is an occurrence of a recurring series;
	// Exception: one edited on its own.
	Series, Exception bool
	MissingLangs      []string // translations not written yet
}

// eventListView is the events list page.
type eventListView struct {
	Layout      layoutView
	Q           listQuery
	Access      models.AdminListAccess
	Tabs        []statusTab
	Rows        []eventListRow
	TotalText   string
	PageText    string
	PrevHref    string
	NextHref    string
	Whens       []option
	Orders      []option
	Categories  []option
	Tags        []option
	Venues      []option
	Organizers  []option
	Trash       bool
	ClearHref   string
	FilterError string
	Bulk        []option
}

// option is one choice of a select or a group of checkboxes.
type option struct {
	Value, Label string
	Selected     bool
	Depth        int // nesting of a category
}

// statusTab is one tab of a list: a status (or all) with its count.
type statusTab struct {
	Label, Href, Count, Status string
	Current                    bool
}

// importView is the page that imports an iCalendar file.
type importView struct {
	Layout    layoutView
	CSRF      string
	MayImport bool
	Error     string       // why the file was refused, localized
	Report    *ical.Report // what the import did
	// CSVJobs are the user's latest CSV imports; CSVMaxMB the upload limit.
	CSVJobs  []*models.CSVImport
	CSVMaxMB int64
}

// formField is one input of a record form, named as the API argument.
type formField struct {
	Name, LabelID, HelpID string
	Type                  string // text, textarea, url, email, tel, number, checkbox
	Translatable          bool
	Wide                  bool // spans the form's width
}

// linkedFormView is the create or edit page of a venue or organizer.
type linkedFormView struct {
	Layout layoutView
	// Library and PreviewAction: as eventFormView's.
	Library       bool
	PreviewAction string
	Revisions     revisionsView // of a stored record
	Kind          string
	ID            int64
	Action        string
	Fields        []formField
	Values        map[string]string
	Errors        formErrors
	Conflict      bool // the record changed since the form was loaded
	Statuses      []option
	StatusName    string
	Status        string
	Langs         []translationLink
	JSONURL       string
	Trashed       bool
}

// linkedListView is a venues or organizers list page.
type linkedListView struct {
	Layout    layoutView
	Kind      string // "venues"
	Path      string
	Q         linkedQuery
	Access    models.AdminListAccess
	Tabs      []statusTab
	Rows      []linkedRow
	TotalText string
	PageText  string
	PrevHref  string
	NextHref  string
	Trash     bool
	Bulk      []option
	NewLabel  string
	EmptyText string
	NameLabel string
}

// linkedQuery is the state of a linked list, kept in its URL.
type linkedQuery struct {
	path, Search, Status string
	Page                 int
}

// linkedTranslationView is the side-by-side translation page of a venue or
// organizer.
type linkedTranslationView struct {
	Layout      layoutView
	Lang        string
	LangName    string
	LangTag     string
	SourceName  string
	SourceTag   string
	Fields      []formField
	Source      map[string]string
	Values      map[string]string
	Missing     map[string]bool
	Errors      formErrors
	Action      string
	EditHref    string
	Langs       []translationLink
	RecordTitle string
}

// mediaEditView is one image: its texts, where it is used, and deletion.
type mediaEditView struct {
	Layout layoutView
	CSRF   string
	Media  *models.Media
	// Uses names the records the user may read and counts the others.
	Uses  models.MediaUsage
	Error string
	Saved bool
	// The texts are edited one language at a time: Lang (the site's
	// language edits the image's own texts, another its translation, whose
	// empty fields show the image's own text as placeholder).
	Lang               string
	Langs              []translationLink
	Title, Alt         string
	TitleHint, AltHint string
	Translating        bool
	// MayChange: the user uploaded the image or is an editor; others see
	// it without the save and delete buttons.
	MayChange bool
}

// mediaListView is the media library grid with its upload form.
type mediaListView struct {
	Layout     layoutView
	CSRF       string
	Items      []models.Media
	Search     string
	Page       int
	TotalPages int
	Total      int
	Error      string
	Uploaded   bool
	MaxBytes   int64
}

// layoutView is what every page's frame shows.
type layoutView struct {
	Lang     string // our code, e.g. "zh-hans"
	HTMLLang string // BCP 47 tag for <html lang>, e.g. "zh-Hans"
	Title    string // the page title, already localized
	Product  string
	// SiteName is the site's own name (/admin/settings), "" when unset.
	SiteName string
	CSSURL   string
	JSURL    string
	// ExtraCSS and ExtraJS are a page's own files (the API docs' Swagger
	// UI), loaded before admin.css and after admin.js.
	ExtraCSS []string
	ExtraJS  []string
	// StyleNonce, when set, is the page's CSP nonce for the style elements
	// a script injects (FullCalendar reads it from <meta name="csp-nonce">).
	StyleNonce string
	HTMXURL    string
	T          func(id string) string
	// TD is T with template data.
	TD func(id string, data map[string]any) string

	User      *models.User // nil when signed out
	RoleName  string
	CSRF      string // the session's token (signed in) for forms and hx-headers
	HXHeaders string // JSON for hx-headers on <body>
	Nonce     string // X-WP-Nonce for the admin's scripts
	Nav       []navItem
	Langs     []ui.LangLink
	LangName  string
	// LangCSRF and LangBack are the switcher's form: its token (the
	// session's, or the sign-in form's when signed out) and the page to
	// come back to.
	LangCSRF, LangBack string
	Flash              string // a localized flash message, "" for none
}

// repeatForm is the recurrence part of the event form (ui.RepeatForm).
type repeatForm = ui.RepeatForm

// repeatPreview is what the preview shows: the rule's sentence and its
// first dates, or why the rule cannot be read.
type repeatPreview struct {
	Sentence string
	Dates    []string
	Error    string
}

// revisionPageView is the page of one revision.
type revisionPageView struct {
	Layout   layoutView
	Record   string // the record's title now
	When, By string
	Rows     []diffRow
	Restore  string // the restore form's action
	Back     string // the edit page
}

// revisionsView is the revisions section of an edit page.
type revisionsView struct {
	Rows []revisionRow
}

// sessionsView is the sessions section of the profile.
type sessionsView struct {
	Intro  string
	Rows   []sessionRow
	Others int // sessions besides the current one
}

// when is a time on the list: its date and time of day, written apart so
// that a narrow column wraps between them, and its ISO form.
type when struct {
	Date, Time, Full, ISO string
}

// termFormView is the create or edit page of a term.
type termFormView struct {
	Layout  layoutView
	K       *termKind
	F       termForm
	ID      int64 // 0 for a new term
	Action  string
	Errors  formErrors
	Parents []option
	Access  models.TermAdminAccess
	Count   string
	Langs   []translationLink
}

// termTranslationView is the side-by-side translation page of a term.
type termTranslationView struct {
	translationView
	K *termKind
}

// confirmView is the confirmation step of a delete.
type confirmView struct {
	Layout  layoutView
	K       *termKind
	Names   []string
	IDs     []string
	Action  string // where the confirmed form posts
	Back    string // where cancel leads, and where to go after
	Single  bool   // one term, posted to its own delete path
	Problem string // why the last attempt failed
}

// termListView is the list page of a taxonomy.
type termListView struct {
	Layout      layoutView
	K           *termKind
	Q           termQuery
	Access      models.TermAdminAccess
	Rows        []termRow
	TotalText   string
	PageText    string
	PrevHref    string
	NextHref    string
	Orders      []option
	Back        string
	FilterError string
}
