package tecimport

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/kalends/kalends/models"
)

// errNoID: a record of the source without an id.
var errNoID = errors.New("it has no id")

// terms imports a taxonomy (category or tag), parents before children.
func (im *importer) terms(ctx context.Context, kind, collection string) error {
	t, err := im.read(ctx, collection, collection, url.Values{"hide_empty": {"false"}})
	if err != nil {
		return fmt.Errorf("%s: %w", collection, err)
	}
	im.rep.kind(kind)
	terms := make([]srcTerm, 0, len(t.base))
	known := map[int64]bool{}
	for _, raw := range t.base {
		var st srcTerm
		if err := json.Unmarshal(raw, &st); err != nil {
			im.rep.fail(kind, im.api(collection), fmt.Errorf("not a term: %w", err))
			continue
		}
		terms = append(terms, st)
		known[st.ID] = true
	}
	done := map[int64]bool{}
	for len(done) < len(terms) {
		progress := false
		for _, st := range terms {
			if done[st.ID] || (st.Parent != 0 && known[st.Parent] && !done[st.Parent]) {
				continue
			}
			done[st.ID], progress = true, true
			im.term(ctx, kind, collection, st, t)
			im.progress(collection, len(done), len(terms))
		}
		if !progress { // a parent loop at the source: the rest at the top
			for _, st := range terms {
				if !done[st.ID] {
					done[st.ID] = true
					st.Parent = 0
					im.term(ctx, kind, collection, st, t)
				}
			}
		}
	}
	im.progressDone()
	im.deleted(kind)
	return nil
}

func (im *importer) term(ctx context.Context, kind, collection string, st srcTerm, t *translated) {
	srcURL := im.api(collection + "/" + sourceID(st.ID))
	mkind := models.KindCategory
	if kind == "tag" {
		mkind = models.KindTag
	}
	lang := im.langOf(st.Lang)
	others := otherLangs(lang, st.Translations)
	var trs []srcTerm
	for _, l := range others {
		var tr srcTerm
		if raw := t.translation(l, st.ID); raw != nil && json.Unmarshal(raw, &tr) == nil {
			tr.Lang = l
			trs = append(trs, tr)
		}
	}
	parent := int64(0)
	if st.Parent != 0 {
		parent = im.local(kind, st.Parent)
	}
	hash := hashOf([]any{st, parent, trs})
	_, err := im.upsert(ctx, kind, mkind, st.ID, srcURL, hash, func(ctx context.Context, id int64) (int64, error) {
		slug, err := im.slugFor(ctx, mkind, st.Slug, id)
		if err != nil {
			return 0, err
		}
		in := models.TermInput{Name: &st.Name, Description: &st.Description}
		if slug != "" {
			in.Slug = &slug
		}
		if kind == "category" {
			in.ParentID = &parent
		}
		var term *models.Term
		if id == 0 {
			term, err = im.db.CreateTerm(ctx, im.opt.User, kind, in, lang)
		} else {
			term, err = im.db.UpdateTerm(ctx, im.opt.User, kind, id, in, lang)
		}
		if err != nil {
			return 0, err
		}
		if err := im.setSlug(ctx, mkind, term.ID, term.Slug, slug); err != nil {
			return term.ID, err
		}
		for _, tr := range trs {
			if _, err := im.db.UpdateTerm(ctx, im.opt.User, kind, term.ID,
				models.TermInput{Name: &tr.Name, Description: &tr.Description}, tr.Lang); err != nil {
				return term.ID, fmt.Errorf("%s translation: %w", tr.Lang, err)
			}
		}
		return term.ID, nil
	})
	if err != nil {
		im.rep.fail(kind, srcURL, err)
	}
}

// venues imports every venue the source lists.
func (im *importer) venues(ctx context.Context) error {
	t, err := im.read(ctx, "venues", "venues", url.Values{})
	if err != nil {
		return fmt.Errorf("venues: %w", err)
	}
	im.rep.kind("venue")
	im.each(ctx, "venues", len(t.base), func(ctx context.Context, i int) { _, _ = im.venue(ctx, t.base[i], t) })
	im.deleted("venue")
	return nil
}

// venue imports one venue (once per run, whoever asks first: the list or
// an event linking one the list did not show) and returns its id here.
func (im *importer) venue(ctx context.Context, raw json.RawMessage, t *translated) (int64, error) {
	var sv srcVenue
	if err := json.Unmarshal(raw, &sv); err != nil || sv.ID == 0 {
		im.rep.fail("venue", im.api("venues"), fmt.Errorf("not a venue: %w", cmp.Or(err, errNoID)))
		return 0, errors.New("not a venue")
	}
	srcURL := im.api("venues/" + sourceID(sv.ID))
	id, _, err := im.onceFor(im.once, "venue:"+sourceID(sv.ID), func() (int64, string, error) {
		lang := im.langOf(sv.Lang)
		var trs []srcVenue
		for _, l := range otherLangs(lang, sv.Translations) {
			var tr srcVenue
			if r := t.translation(l, sv.ID); r != nil && json.Unmarshal(r, &tr) == nil {
				tr.Lang = l
				trs = append(trs, tr)
			}
		}
		img := imageURL(sv.Image)
		sig := sv
		sig.Image = nil
		hash := hashOf([]any{sig, img, trs})
		id, err := im.upsert(ctx, "venue", models.KindVenue, sv.ID, srcURL, hash, func(ctx context.Context, id int64) (int64, error) {
			slug, err := im.slugFor(ctx, models.KindVenue, sv.Slug, id)
			if err != nil {
				return 0, err
			}
			in := models.VenueInput{Venue: &sv.Venue, Description: &sv.Description, Address: &sv.Address, City: &sv.City,
				Country: &sv.Country, Province: &sv.Province, State: &sv.State, Zip: &sv.Zip, Phone: &sv.Phone,
				Website: &sv.Website, StateProvince: &sv.StateProvince, GeoLat: sv.GeoLat, GeoLng: sv.GeoLng,
				ShowMap: sv.ShowMap, ShowMapLink: sv.ShowMapLink}
			if err := im.post(ctx, &in.PostInput, &sv.srcPost, &in.ImageURL, img); err != nil {
				return 0, err
			}
			var v *models.Venue
			if id == 0 {
				var existing bool
				v, existing, err = im.db.Venues().Create(ctx, im.opt.User, in, lang)
				if err == nil && existing {
					return 0, fmt.Errorf("a venue with the same name and address exists here already (id %d): not imported", v.ID)
				}
			} else {
				v, err = im.db.Venues().Update(ctx, im.opt.User, models.ByID(id), in, lang)
			}
			if err != nil {
				return 0, err
			}
			if err := im.setSlug(ctx, models.KindVenue, v.ID, v.Slug, slug); err != nil {
				return v.ID, err
			}
			for _, tr := range trs {
				if _, err := im.db.Venues().Update(ctx, im.opt.User, models.ByID(v.ID), models.VenueInput{Venue: &tr.Venue,
					Description: &tr.Description, Address: &tr.Address, City: &tr.City}, tr.Lang); err != nil {
					return v.ID, fmt.Errorf("%s translation: %w", tr.Lang, err)
				}
			}
			return v.ID, nil
		})
		return id, "", err
	})
	if err != nil {
		im.rep.fail("venue", srcURL, err)
	}
	return id, err
}

// organizers imports every organizer the source lists.
func (im *importer) organizers(ctx context.Context) error {
	t, err := im.read(ctx, "organizers", "organizers", url.Values{})
	if err != nil {
		return fmt.Errorf("organizers: %w", err)
	}
	im.rep.kind("organizer")
	im.each(ctx, "organizers", len(t.base), func(ctx context.Context, i int) { _, _ = im.organizer(ctx, t.base[i], t) })
	im.deleted("organizer")
	return nil
}

func (im *importer) organizer(ctx context.Context, raw json.RawMessage, t *translated) (int64, error) {
	var so srcOrganizer
	if err := json.Unmarshal(raw, &so); err != nil || so.ID == 0 {
		im.rep.fail("organizer", im.api("organizers"), fmt.Errorf("not an organizer: %w", cmp.Or(err, errNoID)))
		return 0, errors.New("not an organizer")
	}
	srcURL := im.api("organizers/" + sourceID(so.ID))
	id, _, err := im.onceFor(im.once, "organizer:"+sourceID(so.ID), func() (int64, string, error) {
		lang := im.langOf(so.Lang)
		var trs []srcOrganizer
		for _, l := range otherLangs(lang, so.Translations) {
			var tr srcOrganizer
			if r := t.translation(l, so.ID); r != nil && json.Unmarshal(r, &tr) == nil {
				tr.Lang = l
				trs = append(trs, tr)
			}
		}
		img := imageURL(so.Image)
		sig := so
		sig.Image = nil
		hash := hashOf([]any{sig, img, trs})
		id, err := im.upsert(ctx, "organizer", models.KindOrganizer, so.ID, srcURL, hash, func(ctx context.Context, id int64) (int64, error) {
			slug, err := im.slugFor(ctx, models.KindOrganizer, so.Slug, id)
			if err != nil {
				return 0, err
			}
			in := models.OrganizerInput{Organizer: &so.Organizer, Description: &so.Description, Phone: &so.Phone,
				Website: &so.Website, Email: &so.Email}
			if err := im.post(ctx, &in.PostInput, &so.srcPost, &in.ImageURL, img); err != nil {
				return 0, err
			}
			var o *models.Organizer
			if id == 0 {
				var existing bool
				o, existing, err = im.db.Organizers().Create(ctx, im.opt.User, in, lang)
				if err == nil && existing {
					return 0, fmt.Errorf("an organizer with the same name exists here already (id %d): not imported", o.ID)
				}
			} else {
				o, err = im.db.Organizers().Update(ctx, im.opt.User, models.ByID(id), in, lang)
			}
			if err != nil {
				return 0, err
			}
			if err := im.setSlug(ctx, models.KindOrganizer, o.ID, o.Slug, slug); err != nil {
				return o.ID, err
			}
			for _, tr := range trs {
				if _, err := im.db.Organizers().Update(ctx, im.opt.User, models.ByID(o.ID),
					models.OrganizerInput{Organizer: &tr.Organizer, Description: &tr.Description}, tr.Lang); err != nil {
					return o.ID, fmt.Errorf("%s translation: %w", tr.Lang, err)
				}
			}
			return o.ID, nil
		})
		return id, "", err
	})
	if err != nil {
		im.rep.fail("organizer", srcURL, err)
	}
	return id, err
}

// post fills the fields every post-like record shares: author, status,
// publication date, and the image (downloaded into the media library).
func (im *importer) post(ctx context.Context, in *models.PostInput, p *srcPost, image **string, img string) error {
	in.AuthorID = im.author(ctx, p.Author)
	if p.Status != "" {
		in.Status = &p.Status
	}
	if p.DateUTC != "" {
		in.DateUTC = &p.DateUTC
	}
	none := ""
	*image = &none
	if img != "" {
		path, err := im.image(ctx, img)
		if err != nil {
			return fmt.Errorf("image %s: %w", img, err)
		}
		*image = &path
	}
	return nil
}

// author is the id here of the user who wrote a record at the source:
// matched by login or e-mail through WordPress's users route; nil (the
// importing user) when there is none, counted in the report.
func (im *importer) author(ctx context.Context, src string) *int64 {
	im.mu.Lock()
	r, ok := im.authors[src]
	if !ok {
		r = &authorResult{done: make(chan struct{})}
		im.authors[src] = r
	}
	im.mu.Unlock()
	if !ok {
		r.id = im.findAuthor(ctx, src)
		close(r.done)
	}
	<-r.done
	if r.id == nil {
		im.rep.mu.Lock()
		im.rep.Owned++
		im.rep.mu.Unlock()
	}
	return r.id
}

func (im *importer) findAuthor(ctx context.Context, src string) *int64 {
	if src == "" || src == "0" || im.kalends {
		return nil // Kalends does not publish its users
	}
	u := im.root + "/wp/v2/users/" + url.PathEscape(src)
	if im.opt.Authed {
		u += "?context=edit"
	}
	var who struct {
		Username string `json:"username"`
		Slug     string `json:"slug"`
		Email    string `json:"email"`
	}
	if _, err := im.getJSON(ctx, u, &who); err != nil {
		return nil
	}
	for _, login := range []string{who.Username, who.Slug} {
		if login == "" {
			continue
		}
		if user, err := im.db.GetUserByLogin(ctx, login); err == nil {
			return &user.ID
		}
	}
	if who.Email != "" {
		p, err := im.db.ListUsers(ctx, models.Console, models.UserFilter{Search: who.Email, PerPage: 50})
		if err == nil {
			for _, user := range p.Items {
				if strings.EqualFold(user.Email, who.Email) {
					return &user.ID
				}
			}
		}
	}
	return nil
}

// image downloads an image into the media library, once per URL (and per
// site: the media brought by an earlier run are reused), and returns its
// path here.
func (im *importer) image(ctx context.Context, src string) (string, error) {
	_, p, err := im.onceFor(im.media, src, func() (int64, string, error) {
		sum := sha256.Sum256([]byte(src))
		sid := hex.EncodeToString(sum[:])
		im.mu.Lock()
		row := im.sources["media"][sid]
		im.seen["media"][sid] = true
		im.mu.Unlock()
		if row != nil {
			if m, err := im.db.Media(ctx, row.LocalID); err == nil {
				im.rep.add("media", func(kr *KindReport) { kr.Unchanged++ })
				return m.ID, m.Path("full"), nil
			}
		}
		if im.opt.DryRun {
			im.rep.add("media", func(kr *KindReport) { kr.Created++ })
			return 0, "", nil
		}
		res, err := im.fetch(ctx, src, im.opt.MediaMaxBytes)
		if err != nil {
			return 0, "", err
		}
		if res.StatusCode != http.StatusOK {
			return 0, "", &StatusError{URL: src, Status: res.StatusCode}
		}
		name := path.Base(res.URL.Path)
		if d, err := url.PathUnescape(name); err == nil {
			name = d
		}
		m, err := im.db.CreateMedia(ctx, im.opt.User, models.MediaUpload{FileName: name, Data: res.Body})
		if err != nil {
			return 0, "", err
		}
		if err := im.db.PutImportSource(ctx, &models.ImportSource{Site: im.root, Kind: "media", SourceID: sid,
			LocalID: m.ID, LocalModified: m.CreatedAt, SourceHash: sid}); err != nil {
			return 0, "", err
		}
		im.rep.add("media", func(kr *KindReport) { kr.Created++ })
		return m.ID, m.Path("full"), nil
	})
	if err != nil {
		im.rep.fail("media", src, err)
	}
	return p, err
}
