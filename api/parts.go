package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/kalends/kalends/internal/partcache"
	"github.com/kalends/kalends/models"
)

// PartCache keeps the rendered JSON of single records, from which lists
// are assembled (internal/partcache).
type PartCache = partcache.Cache

// NewPartCache returns a parts cache of at most maxBytes (nil when 0).
var NewPartCache = partcache.New

// rawJSON is JSON already written (a part), copied as is into a body.
type rawJSON []byte

// Shapes of the parts (partcache.Key.Shape).
const (
	partEvent       = "event"        // an event as a list shows it
	partEventSingle = "event/single" // an event read alone (with json_ld)
	partTerm        = "term"         // a term as /categories and /tags list it
	// Venues and organizers as their lists show them: models.KindVenue
	// and models.KindOrganizer.
)

// partKey names the part of record id in shape as r reads it: the bytes
// depend on the record's data (the generation stands for it), on the
// language and its path prefix (text, links), and on what the reader may
// read of linked records (a contributor sees own draft venues), so a
// signed-in reader has parts of their own (the role is part of the key:
// a role change moves no generation).
func partKey(r *Request, shape string, id int64) partcache.Key {
	k := partcache.Key{Shape: shape, ID: id, Lang: r.Lang, Prefix: r.Prefix}
	if r.User != nil {
		k.Reader = strconv.FormatInt(r.User.ID, 10) + "/" + string(r.User.Role)
	}
	return k
}

// eventItems shapes the events of a list page. Without parts (gen not
// valid) the events come whole from the store and are shaped here; with
// parts the page gives ids only (EventFilter.Bare): those with a ready part
// take it, the rows of the others are read and completed in one batch (a
// fixed number of queries whatever their number), shaped, and kept as
// parts; sums then holds the SHA-256 of each part.
func eventItems(r *Request, events []*models.Event, gen int64, parts bool) (items []any, sums [][sha256.Size]byte, err error) {
	items = make([]any, len(events))
	if !parts {
		for i, e := range events {
			items[i] = presentEvent(r, e, false)
		}
		return items, nil, nil
	}
	cache := r.Deps.Parts
	sums = make([][sha256.Size]byte, len(events))
	var missing []*models.Event
	var at []int
	for i, e := range events {
		if b, sum := cache.GetSum(partKey(r, partEvent, e.ID), gen); b != nil {
			items[i], sums[i] = rawJSON(b), sum
			continue
		}
		missing = append(missing, e)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return items, sums, nil
	}
	// The page gave ids only: the rows of the missing, then their links.
	ids := make([]int64, len(missing))
	for j, e := range missing {
		ids[j] = e.ID
	}
	rows, err := r.Deps.DB.EventsByIDs(r.Ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Deps.DB.CompleteEvents(r.Ctx, r.User, rows, r.Lang); err != nil {
		return nil, nil, err
	}
	byID := make(map[int64]*models.Event, len(rows))
	for _, e := range rows {
		byID[e.ID] = e
	}
	gone := false
	for j, id := range ids {
		e := byID[id]
		if e == nil { // deleted since the page was read: left out, as if read after
			gone = true
			continue
		}
		b, err := marshal(presentEvent(r, e, false))
		if err != nil {
			return nil, nil, ErrInternal(err)
		}
		sums[at[j]] = cache.Put(partKey(r, partEvent, e.ID), gen, b)
		items[at[j]] = rawJSON(b)
	}
	if gone {
		kept, keptSums := items[:0], sums[:0]
		for i, it := range items {
			if it != nil {
				kept, keptSums = append(kept, it), append(keptSums, sums[i])
			}
		}
		items, sums = kept, keptSums
	}
	return items, sums, nil
}

// sendParts answers 200 with the object {key: [parts…], rest…}, byte for
// byte as sendJSON writes it, and its ETag: a hash of the answer in which
// each part stands as its SHA-256 (sums), so the parts, most of a page,
// are not hashed again on every answer. A change of any part changes its
// sum, so the tag stays a strong one. The parts are written straight into
// the response's body, not assembled apart and copied into it: a default
// page of 120 events is about 800 KB, and that copy was 8% of its CPU.
func sendParts(c *fiber.Ctx, key string, parts []any, sums [][sha256.Size]byte, rest Obj) error {
	b := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooledJSON {
			b.Reset()
			jsonBuffers.Put(b)
		}
	}()
	// What comes before and after the parts, first: nothing is written
	// to the response when a value of rest cannot be.
	b.WriteByte('{')
	appendString(b, key)
	b.WriteString(":[")
	head := b.Len()
	b.WriteByte(']')
	for _, kv := range rest {
		b.WriteByte(',')
		appendString(b, kv.K)
		b.WriteByte(':')
		if err := appendJSON(b, kv.V); err != nil {
			return ErrInternal(err)
		}
	}
	b.WriteByte('}')
	h := sha256.New()
	h.Write(b.Bytes()[:head])
	resp := c.Status(http.StatusOK).Response()
	resp.ResetBody()
	w := resp.BodyWriter()
	_, _ = w.Write(b.Bytes()[:head]) // appends to the body: cannot fail
	comma := []byte{','}
	for i, p := range parts {
		if i > 0 {
			_, _ = w.Write(comma)
			h.Write(comma)
		}
		_, _ = w.Write(p.(rawJSON))
		h.Write(sums[i][:])
	}
	_, _ = w.Write(b.Bytes()[head:])
	h.Write(b.Bytes()[head:])
	sum := h.Sum(nil)
	c.Set(fiber.HeaderETag, `"`+hex.EncodeToString(sum[:12])+`"`)
	c.Set(fiber.HeaderContentType, contentTypeJSON)
	return nil
}

// eventPart is the single read of event e (as stored, from
// GetEventBare), from its ready part or shaped and kept.
func eventPart(r *Request, e *models.Event, gen int64) (rawJSON, error) {
	k := partKey(r, partEventSingle, e.ID)
	if b := r.Deps.Parts.Get(k, gen); b != nil {
		return b, nil
	}
	if err := r.Deps.DB.CompleteEvents(r.Ctx, r.User, []*models.Event{e}, r.Lang); err != nil {
		return nil, err
	}
	b, err := marshal(presentEvent(r, e, true))
	if err != nil {
		return nil, ErrInternal(err)
	}
	r.Deps.Parts.Put(k, gen, b)
	return b, nil
}

// partOf is the JSON of record id in shape: its ready part, or what
// present shapes, kept as a part. Without parts (parts false) it is what
// present shapes. gen must have been read before the record was: data
// read under an older generation could then be kept under a newer one.
func partOf(r *Request, gen int64, parts bool, shape string, id int64, present func() Obj) any {
	if !parts {
		return present()
	}
	k := partKey(r, shape, id)
	if b := r.Deps.Parts.Get(k, gen); b != nil {
		return rawJSON(b)
	}
	o := present()
	b, err := marshal(o)
	if err != nil { // not kept: the body's own encoding reports it
		return o
	}
	r.Deps.Parts.Put(k, gen, b)
	return rawJSON(b)
}

// partsWrote wraps next so that a write (any method but GET, HEAD and
// OPTIONS) makes the parts cache read the generation before its next part.
func partsWrote(parts *PartCache, next fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := next(c)
		if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead && m != fiber.MethodOptions {
			parts.Wrote()
		}
		return err
	}
}
