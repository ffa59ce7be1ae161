// Package tecimport copies a whole calendar from a running The Events
// Calendar site (or another Kalends) through its REST API into this
// site's store: kalends import tec URL (issue 33).
//
// Everything is fetched through internal/safehttp. The records come in the
// order links need them: categories (parents first), tags, venues,
// organizers, then events. Each record remembers its source in
// import_sources (models.ImportSource), so a second run updates what the
// first brought, keeps what was edited here since (unless Overwrite), and
// lists what the source no longer has.
package tecimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kalends/kalends/internal/safehttp"
	"github.com/kalends/kalends/models"
)

// Namespaces the import reads.
const (
	NamespaceTEC     = "tribe/events/v1"
	NamespaceKalends = "cal/events/v1"
)

// Options say what to import and how.
type Options struct {
	// Root is the site's REST root (https://example.org/wp-json).
	Root string
	// Namespace is NamespaceTEC (default) or NamespaceKalends.
	Namespace string
	// Client fetches every URL (pages, next pages, images).
	Client *safehttp.Client
	// Authed says the client sends credentials: drafts and private
	// records are asked for.
	Authed bool
	// User writes the records, and owns those whose author has no account
	// here.
	User *models.User
	// Lang is the language of the records of a source that does not say
	// (TEC): the site's.
	Lang string
	// Languages are the content languages read from another Kalends with
	// ml_language.
	Languages []string
	// DryRun reads and compares, and writes nothing.
	DryRun bool
	// Overwrite replaces records edited here since the last import.
	Overwrite bool
	// Concurrency is how many requests are in flight (default 2).
	Concurrency int
	// Retries is how many times a 429 or 5xx answer is asked again
	// (default 4); Backoff the first wait (default 1 s), doubled each time;
	// MaxWait caps one wait, Retry-After's included (default 60 s).
	Retries       int
	Backoff       time.Duration
	MaxWait       time.Duration
	MediaMaxBytes int64
	Progress      io.Writer // nil: no progress line
}

// importer is one run.
type importer struct {
	opt     *Options
	db      *models.DB
	root    string
	rootURL *url.URL
	rep     *Report
	retries atomic.Int64
	kalends bool

	mu      sync.Mutex
	sources map[string]map[string]*models.ImportSource // kind → source id → row
	ids     map[string]map[int64]int64                 // kind → source id → id here
	seen    map[string]map[string]bool
	once    map[string]*onceResult // "kind:id" → the record's one import
	authors map[string]*authorResult
	media   map[string]*onceResult // image URL → its one download

	progressMu      sync.Mutex
	lastProgressAt  time.Time
	lastProgressLen int
}

type onceResult struct {
	done chan struct{}
	id   int64
	path string
	err  error
}

type authorResult struct {
	done chan struct{}
	id   *int64
}

// Run imports the calendar at opt.Root into db.
func Run(ctx context.Context, db *models.DB, opt *Options) (*Report, error) {
	if opt.Namespace == "" {
		opt.Namespace = NamespaceTEC
	}
	opt.Namespace = strings.Trim(opt.Namespace, "/")
	if opt.Concurrency <= 0 {
		opt.Concurrency = 2
	}
	if opt.Retries == 0 {
		opt.Retries = 4
	}
	if opt.Backoff <= 0 {
		opt.Backoff = time.Second
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = time.Minute
	}
	if opt.MediaMaxBytes <= 0 {
		opt.MediaMaxBytes = 20 << 20
	}
	if opt.Lang == "" {
		opt.Lang = "en"
	}
	if opt.User == nil || opt.Client == nil {
		return nil, errors.New("tecimport: a user and a client are required")
	}
	root := strings.TrimRight(opt.Root, "/")
	u, err := url.Parse(root)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not the http(s) address of a site's REST root (https://example.org/wp-json)", opt.Root)
	}
	im := &importer{opt: opt, db: db, root: root, rootURL: u, rep: &Report{},
		kalends: opt.Namespace == NamespaceKalends,
		sources: map[string]map[string]*models.ImportSource{}, ids: map[string]map[int64]int64{},
		seen: map[string]map[string]bool{}, once: map[string]*onceResult{}, authors: map[string]*authorResult{},
		media: map[string]*onceResult{}}
	for _, k := range []string{"category", "tag", "venue", "organizer", "event", "media"} {
		rows, err := db.ImportSources(ctx, root, k)
		if err != nil {
			return nil, err
		}
		im.sources[k], im.ids[k], im.seen[k] = rows, map[int64]int64{}, map[string]bool{}
	}
	// The namespace must answer: a wrong URL stops here, not after five
	// lists of errors.
	var index map[string]any
	if _, err := im.getJSON(ctx, im.root+"/"+opt.Namespace+"/", &index); err != nil {
		var se *StatusError
		if !errors.As(err, &se) || se.Status != 404 {
			return nil, fmt.Errorf("the REST root %s does not answer for %s: %w", root, opt.Namespace, err)
		}
	}
	steps := []func(context.Context) error{
		func(ctx context.Context) error { return im.terms(ctx, "category", "categories") },
		func(ctx context.Context) error { return im.terms(ctx, "tag", "tags") },
		im.venues, im.organizers, im.events,
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			if ctx.Err() != nil {
				return im.rep, ctx.Err()
			}
			return im.rep, err
		}
	}
	im.rep.Retries = im.retries.Load()
	return im.rep, nil
}

// progress writes "label n/total" over the previous line, at most every
// 100 ms; total 0 is unknown.
func (im *importer) progress(label string, n, total int) {
	o := im
	if im.opt.Progress == nil {
		return
	}
	o.progressMu.Lock()
	defer o.progressMu.Unlock()
	if time.Since(o.lastProgressAt) < 100*time.Millisecond && n != total {
		return
	}
	o.lastProgressAt = time.Now()
	line := fmt.Sprintf("%s %d", label, n)
	if total > 0 {
		line = fmt.Sprintf("%s %d/%d", label, n, total)
	}
	pad := max(o.lastProgressLen-len(line), 0)
	o.lastProgressLen = len(line)
	_, _ = fmt.Fprintf(im.opt.Progress, "\r%s%s", line, strings.Repeat(" ", pad))
}

func (im *importer) progressDone() {
	o := im
	if im.opt.Progress == nil {
		return
	}
	o.progressMu.Lock()
	defer o.progressMu.Unlock()
	_, _ = fmt.Fprintf(im.opt.Progress, "\r%s\r", strings.Repeat(" ", o.lastProgressLen))
	o.lastProgressLen = 0
}

// each runs f for 0..n-1, Concurrency at a time.
func (im *importer) each(ctx context.Context, label string, n int, f func(ctx context.Context, i int)) {
	sem := make(chan struct{}, im.opt.Concurrency)
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(ctx, i)
			im.progress(label, int(done.Add(1)), n)
		}()
	}
	wg.Wait()
	im.progressDone()
}

// translated is a collection read in every language: base holds each
// record as the source's own language has it (TEC: the only reading), tr
// each translation by language and id.
type translated struct {
	base []json.RawMessage
	tr   map[string]map[int64]json.RawMessage
}

// read lists a collection; from another Kalends, once per language.
func (im *importer) read(ctx context.Context, collection, key string, query url.Values) (*translated, error) {
	if !im.kalends {
		list, err := im.list(ctx, collection, key, query)
		return &translated{base: list}, err
	}
	t := &translated{tr: map[string]map[int64]json.RawMessage{}}
	byID := map[int64]json.RawMessage{}
	var order []int64
	for _, lang := range im.opt.Languages {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set("ml_language", lang)
		list, err := im.list(ctx, collection, key, q)
		if err != nil {
			return nil, err
		}
		m := map[int64]json.RawMessage{}
		for _, raw := range list {
			var head struct {
				ID   int64  `json:"id"`
				Lang string `json:"lang"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				continue
			}
			m[head.ID] = raw
			if _, ok := byID[head.ID]; !ok {
				order = append(order, head.ID)
				byID[head.ID] = nil
			}
			if head.Lang == lang {
				byID[head.ID] = raw
			}
		}
		t.tr[lang] = m
	}
	for _, id := range order {
		raw := byID[id]
		if raw == nil {
			// Its own language is not one read: the first reading.
			for _, lang := range im.opt.Languages {
				if r, ok := t.tr[lang][id]; ok {
					raw = r
					break
				}
			}
		}
		t.base = append(t.base, raw)
	}
	return t, nil
}

// translation is the record id as read in lang (nil when not read).
func (t *translated) translation(lang string, id int64) json.RawMessage {
	if t == nil || t.tr == nil {
		return nil
	}
	return t.tr[lang][id]
}

// hashOf is the hash of what the source says of a record (its JSON).
func hashOf(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// outcome of upsert.
const (
	created   = "created"
	updated   = "updated"
	unchanged = "unchanged"
	kept      = "kept"
)

// upsert decides what to do with a record of kind from the source: write
// it (create when it has no row here, update when the source changed it
// and it was not edited here since), or leave it. write creates (id 0) or
// updates the record and returns its id here; the source row is stored
// after it.
func (im *importer) upsert(ctx context.Context, kind string, mkind models.Kind, srcID int64, srcURL, hash string,
	write func(ctx context.Context, id int64) (int64, error)) (int64, error) {
	sid := sourceID(srcID)
	im.mu.Lock()
	row := im.sources[kind][sid]
	im.seen[kind][sid] = true
	im.mu.Unlock()
	id, outcome := int64(0), created
	if row != nil {
		mod, err := im.db.ImportedModified(ctx, mkind, row.LocalID)
		switch {
		case errors.Is(err, models.ErrNotFound):
			// Deleted here: brought again.
		case err != nil:
			return 0, err
		case row.SourceHash == hash:
			im.remember(kind, srcID, row.LocalID)
			im.rep.add(kind, func(kr *KindReport) { kr.Unchanged++ })
			return row.LocalID, nil
		case !mod.Equal(row.LocalModified) && !im.opt.Overwrite:
			im.remember(kind, srcID, row.LocalID)
			im.rep.add(kind, func(kr *KindReport) { kr.Kept++; kr.KeptURLs = append(kr.KeptURLs, srcURL) })
			return row.LocalID, nil
		default:
			id, outcome = row.LocalID, updated
		}
	}
	if im.opt.DryRun {
		im.rep.add(kind, func(kr *KindReport) { count(kr, outcome) })
		return id, nil
	}
	newID, err := write(ctx, id)
	if err != nil {
		return 0, err
	}
	mod, err := im.db.ImportedModified(ctx, mkind, newID)
	if err != nil {
		return 0, err
	}
	if err := im.db.PutImportSource(ctx, &models.ImportSource{Site: im.root, Kind: kind, SourceID: sid,
		LocalID: newID, LocalModified: mod, SourceHash: hash}); err != nil {
		return 0, err
	}
	im.remember(kind, srcID, newID)
	im.rep.add(kind, func(kr *KindReport) { count(kr, outcome) })
	return newID, nil
}

func count(kr *KindReport, outcome string) {
	switch outcome {
	case created:
		kr.Created++
	case updated:
		kr.Updated++
	}
}

func (im *importer) remember(kind string, srcID, id int64) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.ids[kind][srcID] = id
}

// local is the id here of the record of kind with srcID, 0 when none.
func (im *importer) local(kind string, srcID int64) int64 {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.ids[kind][srcID]
}

// onceFor runs f once per key, the other callers waiting for its result.
func (im *importer) onceFor(m map[string]*onceResult, key string, f func() (int64, string, error)) (int64, string, error) {
	im.mu.Lock()
	r, ok := m[key]
	if !ok {
		r = &onceResult{done: make(chan struct{})}
		m[key] = r
	}
	im.mu.Unlock()
	if ok {
		<-r.done
		return r.id, r.path, r.err
	}
	r.id, r.path, r.err = f()
	close(r.done)
	return r.id, r.path, r.err
}

// deleted lists the records of kind an earlier import brought that this
// reading of the source did not see.
func (im *importer) deleted(kind string) {
	im.mu.Lock()
	defer im.mu.Unlock()
	for sid, row := range im.sources[kind] {
		if !im.seen[kind][sid] {
			d := fmt.Sprintf("id %d here (id %s at the source)", row.LocalID, sid)
			im.rep.add(kind, func(kr *KindReport) { kr.Deleted = append(kr.Deleted, d) })
		}
	}
}

// slugFor checks the slug a record should get here: taken by another
// record (not the one this import wrote before, excluded by id) is an
// error, reported rather than suffixed.
func (im *importer) slugFor(ctx context.Context, kind models.Kind, slug string, id int64) (string, error) {
	slug = DecodeSlug(slug)
	if slug == "" {
		return "", nil
	}
	taken, err := im.db.SlugTaken(ctx, kind, slug, id)
	if err != nil {
		return "", err
	}
	if taken {
		return "", fmt.Errorf("the slug %q is taken here by a %s this import did not bring: not imported (rename one of them and import again)", slug, kind)
	}
	return slug, nil
}

// setSlug gives a record written here the source's slug when the store
// made another of it (it slugifies what it is given).
func (im *importer) setSlug(ctx context.Context, kind models.Kind, id int64, have, want string) error {
	if want == "" || have == want {
		return nil
	}
	if err := im.db.SetImportedSlug(ctx, kind, id, want); err != nil {
		if errors.Is(err, models.ErrSlugTaken) {
			return fmt.Errorf("the slug %q is taken here by a %s this import did not bring", want, kind)
		}
		return err
	}
	return nil
}

// langOf is the language a record was written in at the source.
func (im *importer) langOf(lang string) string {
	if im.kalends && lang != "" {
		return lang
	}
	return im.opt.Lang
}

// otherLangs are the translations of a record other than its own language.
func otherLangs(own string, tr []string) []string {
	var out []string
	for _, l := range tr {
		if l != own {
			out = append(out, l)
		}
	}
	return out
}
