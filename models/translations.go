package models

import (
	"context"
	"fmt"
	"strings"
)

// translationSpec names the translation table of a kind and its text fields
// (SPEC §3): event title, description, excerpt; venue venue, description,
// address, city; organizer organizer, description; term name, description.
type translationSpec struct {
	Table  string
	Key    string
	Fields []string
}

var translationSpecs = map[Kind]translationSpec{
	KindEvent:     {"event_translations", "event_id", []string{"title", "description", "excerpt"}},
	KindVenue:     {"venue_translations", "venue_id", []string{"venue", "description", "address", "city"}},
	KindOrganizer: {"organizer_translations", "organizer_id", []string{"organizer", "description"}},
	KindCategory:  {"term_translations", "term_id", []string{"name", "description"}},
	KindTag:       {"term_translations", "term_id", []string{"name", "description"}},
	KindMedia:     {"media_translations", "media_id", []string{"title", "alt_text"}},
}

// TranslatableFields lists the text fields of a kind that carry translations.
func TranslatableFields(k Kind) []string { return translationSpecs[k].Fields }

// SaveTranslation stores the given fields of record id in lang, leaving the
// record's other translated fields as they are. Unknown fields are ignored.
// An empty value removes that field's translation (stored as NULL), so
// reads fall back to the source text instead of showing a blank.
func (s *Store) saveTranslation(ctx context.Context, k Kind, id int64, lang string, fields map[string]string) error {
	spec, ok := translationSpecs[k]
	if !ok {
		return fmt.Errorf("models: %s has no translations", k)
	}
	cols := []string{spec.Key, "lang"}
	args := []any{id, lang}
	var sets []string
	for _, f := range spec.Fields {
		v, ok := fields[f]
		if !ok {
			continue
		}
		cols = append(cols, f)
		if c, ok := textColumnOf(spec.Table, f); ok {
			v = c.nfcValue(v) // every writer's text is stored composed
		}
		if v == "" {
			args = append(args, nil) // an empty translation falls back to the source text
		} else {
			args = append(args, v)
		}
		if s.dialect == MySQL {
			sets = append(sets, f+" = VALUES("+f+")")
		} else {
			sets = append(sets, f+" = excluded."+f)
		}
	}
	if len(sets) == 0 {
		return nil
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) ", spec.Table, strings.Join(cols, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", "))
	if s.dialect == MySQL {
		q += "ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
	} else {
		q += fmt.Sprintf("ON CONFLICT (%s, lang) DO UPDATE SET %s", spec.Key, strings.Join(sets, ", "))
	}
	// s.exec: prepared once per connection on SQLite (the table's triggers
	// made its compilation 9% of a PATCH), and the text bound, not written
	// into the statement.
	if err := s.exec(ctx, q, args...); err != nil {
		return fmt.Errorf("models: save %s %d translation %s: %w", k, id, lang, mapErr(err))
	}
	return nil
}

// SearchCondition builds the WHERE fragment of a text search over a kind's
// table (aliased alias): every word must occur (case-insensitive substring,
// which also works for Chinese, Japanese and Korean, where words are not
// separated by spaces) in one of fields of the record, or in one of the lang
// translations of those fields. It returns "" when words is empty.
func SearchCondition(d Dialect, k Kind, alias, idCol string, fields []string, lang string, words []string) (string, []any) {
	if len(words) == 0 {
		return "", nil
	}
	spec := translationSpecs[k]
	translated := map[string]bool{}
	for _, f := range spec.Fields {
		translated[f] = true
	}
	var conds []string
	var args []any
	// The stored text is folded by the database, the words here, the same
	// way on both dialects (FoldSearch): MySQL's collation folds case,
	// width, kana and accents by itself; SQLite gets kfold, which does what
	// FoldSearch does.
	fold := "LOWER(%s)"
	if d == SQLite {
		fold = "kfold(%s)"
	}
	for _, w := range words {
		pat := "%" + EscapeLike(FoldSearch(w)) + "%"
		var ors []string
		for _, f := range fields {
			ors = append(ors, fmt.Sprintf(fold+" LIKE ? ESCAPE '!'", alias+"."+f))
			args = append(args, pat)
		}
		var tors []string
		var targs []any
		for _, f := range fields {
			if translated[f] {
				tors = append(tors, fmt.Sprintf(fold+" LIKE ? ESCAPE '!'", "t."+f))
				targs = append(targs, pat)
			}
		}
		if len(tors) > 0 && lang != "" {
			ors = append(ors, fmt.Sprintf("EXISTS (SELECT 1 FROM %s t WHERE t.%s = %s.%s AND t.lang = ? AND (%s))",
				spec.Table, spec.Key, alias, idCol, strings.Join(tors, " OR ")))
			args = append(args, lang)
			args = append(args, targs...)
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	return "(" + strings.Join(conds, " AND ") + ")", args
}

// EscapeLike escapes the LIKE wildcards of s with '!' (used with ESCAPE '!',
// which both dialects accept).
func EscapeLike(s string) string { return likeEscaper.Replace(s) }

var likeEscaper = strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")

// translated is a record whose text fields carry translations.
type translated interface {
	// translationKey returns the record's id and source language.
	translationKey() (int64, string)
	// textField returns the record's field of that name (nil if unknown).
	textField(name string) *string
	setTranslations(langs []string)
}

// overlayTranslations lays the lang translations of recs over their text
// fields, field by field (a record read in its source language is left as
// it is), and sets the languages each record is translated into, sorted.
// One query whatever len(recs).
func overlayTranslations[R translated](ctx context.Context, s *Store, k Kind, recs []R, lang string) error {
	if len(recs) == 0 {
		return nil
	}
	spec := translationSpecs[k]
	ids := make([]int64, len(recs))
	for i, rec := range recs {
		ids[i], _ = rec.translationKey()
	}
	conds := make([]string, len(spec.Fields))
	for i, f := range spec.Fields {
		conds[i] = f + " IS NOT NULL"
	}
	in, args := inList(ids)
	rows, err := s.query(ctx,
		fmt.Sprintf("SELECT %s, lang, %s FROM %s WHERE %s IN (%s) AND (%s) ORDER BY %s, lang",
			spec.Key, strings.Join(spec.Fields, ", "), spec.Table, spec.Key, in, strings.Join(conds, " OR "), spec.Key),
		args...)
	if err != nil {
		return fmt.Errorf("models: load %s translations: %w", k, mapErr(err))
	}
	defer func() { _ = rows.Close() }()
	langs := map[int64][]string{}
	texts := map[int64][]*string{} // the lang row of each record
	for rows.Next() {
		var id int64
		var l string
		vals := make([]*string, len(spec.Fields))
		dest := []any{&id, &l}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("models: scan %s translation: %w", k, mapErr(err))
		}
		langs[id] = append(langs[id], l)
		if l == lang {
			texts[id] = vals
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("models: load %s translations: %w", k, mapErr(err))
	}
	for _, rec := range recs {
		id, source := rec.translationKey()
		ls := langs[id]
		if ls == nil {
			ls = []string{}
		}
		rec.setTranslations(ls)
		if lang == "" || lang == source {
			continue
		}
		for i, v := range texts[id] {
			if dst := rec.textField(spec.Fields[i]); v != nil && dst != nil {
				*dst = *v
			}
		}
	}
	return nil
}

// The shared columns of events, venues and organizers key their translations.
func (p *Post) translationKey() (int64, string) { return p.ID, p.Lang }
func (p *Post) setTranslations(l []string)      { p.Translations = l }

func (e *Event) textField(name string) *string {
	switch name {
	case "title":
		return &e.Title
	case "description":
		return &e.Description
	case "excerpt":
		return &e.Excerpt
	}
	return nil
}

func (v *Venue) textField(name string) *string {
	switch name {
	case "venue":
		return &v.Venue
	case "description":
		return &v.Description
	case "address":
		return &v.Address
	case "city":
		return &v.City
	}
	return nil
}

func (o *Organizer) textField(name string) *string {
	switch name {
	case "organizer":
		return &o.Organizer
	case "description":
		return &o.Description
	}
	return nil
}

func (t *Term) translationKey() (int64, string) { return t.ID, t.Lang }
func (t *Term) setTranslations(l []string)      { t.Translations = l }
func (t *Term) textField(name string) *string {
	switch name {
	case "name":
		return &t.Name
	case "description":
		return &t.Description
	}
	return nil
}

// translatable views records of a type parameter as translated records
// (every record type of the package is; a new one without the methods
// fails the tests at once).
func translatable[T any](recs []*T) []translated {
	out := make([]translated, len(recs))
	for i, r := range recs {
		out[i] = any(r).(translated)
	}
	return out
}
