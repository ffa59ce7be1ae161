package tecimport

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Failure is one record that could not be brought: where it is at the
// source and why.
type Failure struct {
	URL    string
	Reason string
}

// KindReport counts what happened to the records of one kind.
type KindReport struct {
	Kind      string
	Created   int
	Updated   int
	Unchanged int
	// Kept: edited here since the last import, left as they are (no
	// --overwrite); KeptURLs names them.
	Kept     int
	KeptURLs []string
	Failed   []Failure
	// Deleted lists the records an earlier import brought that the source
	// no longer has: left alone here.
	Deleted []string
}

// Report is what an import did.
type Report struct {
	mu    sync.Mutex
	Kinds []*KindReport
	// Owned counts records whose author has no account here: the
	// importing user owns them.
	Owned int
	// Notes are remarks on the whole import (a route the site does not
	// expose, series exceptions left behind, ...).
	Notes   []string
	Retries int64
}

// kind returns the report of kind, made on first use.
func (r *Report) kind(k string) *KindReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, kr := range r.Kinds {
		if kr.Kind == k {
			return kr
		}
	}
	kr := &KindReport{Kind: k}
	r.Kinds = append(r.Kinds, kr)
	return kr
}

func (r *Report) add(k string, f func(*KindReport)) {
	kr := r.kind(k)
	r.mu.Lock()
	defer r.mu.Unlock()
	f(kr)
}

func (r *Report) fail(k, url string, err error) {
	r.add(k, func(kr *KindReport) { kr.Failed = append(kr.Failed, Failure{URL: url, Reason: err.Error()}) })
}

func (r *Report) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// Failures is the number of records that failed, all kinds together.
func (r *Report) Failures() int {
	n := 0
	for _, kr := range r.Kinds {
		n += len(kr.Failed)
	}
	return n
}

// Created is the number of records created, all kinds together.
func (r *Report) Created() int {
	n := 0
	for _, kr := range r.Kinds {
		n += kr.Created
	}
	return n
}

// Write prints the summary: one line per kind, then each failure with its
// source URL and reason, the records kept and those deleted at the
// source, and the notes.
func (r *Report) Write(w io.Writer, dryRun bool) {
	if dryRun {
		_, _ = fmt.Fprintln(w, "dry run: nothing was written; the counts are what an import would do")
	}
	for _, kr := range r.Kinds {
		_, _ = fmt.Fprintf(w, "%s: created %d, updated %d, unchanged %d, kept %d, failed %d\n",
			kr.Kind, kr.Created, kr.Updated, kr.Unchanged, kr.Kept, len(kr.Failed))
	}
	for _, kr := range r.Kinds {
		sort.Slice(kr.Failed, func(i, j int) bool { return kr.Failed[i].URL < kr.Failed[j].URL })
		for _, f := range kr.Failed {
			_, _ = fmt.Fprintf(w, "failed %s %s: %s\n", kr.Kind, f.URL, f.Reason)
		}
		sort.Strings(kr.KeptURLs)
		for _, u := range kr.KeptURLs {
			_, _ = fmt.Fprintf(w, "kept %s %s: edited here since the last import (--overwrite replaces it)\n", kr.Kind, u)
		}
		sort.Strings(kr.Deleted)
		for _, d := range kr.Deleted {
			_, _ = fmt.Fprintf(w, "deleted at the source, left here: %s %s\n", kr.Kind, d)
		}
	}
	if r.Owned > 0 {
		_, _ = fmt.Fprintf(w, "%d records have an author with no account here (matched by login or e-mail): the importing user owns them\n", r.Owned)
	}
	if r.Retries > 0 {
		_, _ = fmt.Fprintf(w, "%d requests were asked again after a 429 or 5xx answer\n", r.Retries)
	}
	for _, n := range r.Notes {
		_, _ = fmt.Fprintf(w, "note: %s\n", n)
	}
}
