package models

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// updateByPK writes every column of model (a pointer to a struct bun maps)
// but its primary key and the columns in except to its row. On SQLite in a
// transaction it runs one statement with ? placeholders through exec, so
// that it is prepared once per connection: bun writes each value into the
// statement's text, and SQLite then compiles the UPDATE with every trigger
// of the table on each call (the events have fifteen; a quarter of a
// PATCH's CPU). Anywhere else, and for a model holding a value it cannot
// bind as bun would write it, it is bun's model update.
func (s *Store) updateByPK(ctx context.Context, model any, except ...string) error {
	if _, inTx := s.db.(bun.Tx); inTx && s.txPrep != nil {
		if q, args, ok := updateStatement(s.db.Dialect().Tables(), model, except); ok {
			return s.exec(ctx, q, args...)
		}
	}
	_, err := s.db.NewUpdate().Model(model).WherePK().ExcludeColumn(except...).Exec(ctx)
	return err
}

// insertRow inserts model's row (a pointer to a struct bun maps, its
// primary key set), as updateByPK writes one: prepared once per connection
// on SQLite in a transaction, bun's model insert otherwise.
func (s *Store) insertRow(ctx context.Context, model any) error {
	if _, inTx := s.db.(bun.Tx); inTx && s.txPrep != nil {
		if q, args, ok := insertStatement(s.db.Dialect().Tables(), model); ok {
			return s.exec(ctx, q, args...)
		}
	}
	_, err := s.db.NewInsert().Model(model).Exec(ctx)
	return err
}

// updateText is the statement of one model type and list of excepted
// columns, with the fields whose values it binds in order.
type updateText struct {
	query  string
	fields []*schema.Field
}

var updateTexts sync.Map // of reflect.Type + "\x00" + except -> *updateText

var insertTexts sync.Map // of reflect.Type -> *updateText

// insertStatement returns the INSERT of model's row and its arguments; ok
// is false when model is not a pointer to a struct with one primary key
// that is set, has a field bun would write as DEFAULT or NULL for its zero
// value, or holds a value bindValue does not know.
func insertStatement(tables *schema.Tables, model any) (string, []any, bool) {
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", nil, false
	}
	strct := v.Elem()
	var ut *updateText
	if c, ok := insertTexts.Load(strct.Type()); ok {
		ut = c.(*updateText)
	} else {
		t := tables.Get(strct.Type())
		if len(t.PKs) != 1 {
			return "", nil, false
		}
		ut = &updateText{}
		var cols []string
		for _, f := range t.Fields {
			if f.NullZero || f.SQLDefault != "" {
				return "", nil, false
			}
			cols = append(cols, string(f.SQLName))
			ut.fields = append(ut.fields, f)
		}
		ut.query = "INSERT INTO " + string(t.SQLName) + " (" + strings.Join(cols, ", ") + ") VALUES (" +
			strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
		insertTexts.Store(strct.Type(), ut)
	}
	args := make([]any, len(ut.fields))
	for i, f := range ut.fields {
		if f.IsPK && f.HasZeroValue(strct) {
			return "", nil, false // bun lets the database number it
		}
		a, ok := bindValue(f.Value(strct))
		if !ok {
			return "", nil, false
		}
		args[i] = a
	}
	return ut.query, args, true
}

// updateStatement returns the UPDATE of model's row and its arguments;
// ok is false when model is not a pointer to a struct with one primary
// key, or holds a value bindValue does not know.
func updateStatement(tables *schema.Tables, model any, except []string) (string, []any, bool) {
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", nil, false
	}
	strct := v.Elem()
	key := strct.Type().String() + "\x00" + strings.Join(except, ",")
	var ut *updateText
	if c, ok := updateTexts.Load(key); ok {
		ut = c.(*updateText)
	} else {
		t := tables.Get(strct.Type())
		if len(t.PKs) != 1 {
			return "", nil, false
		}
		var b strings.Builder
		b.WriteString("UPDATE " + string(t.SQLName) + " SET ")
		ut = &updateText{}
		for _, f := range t.DataFields {
			if f.IsPK || f.NullZero || slices.Contains(except, f.Name) {
				if f.NullZero && !slices.Contains(except, f.Name) {
					return "", nil, false // bun writes its zero as NULL: left to bun
				}
				continue
			}
			if len(ut.fields) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(string(f.SQLName) + " = ?")
			ut.fields = append(ut.fields, f)
		}
		pk := t.PKs[0]
		b.WriteString(" WHERE " + string(pk.SQLName) + " = ?")
		ut.fields = append(ut.fields, pk)
		ut.query = b.String()
		updateTexts.Store(key, ut)
	}
	args := make([]any, len(ut.fields))
	for i, f := range ut.fields {
		a, ok := bindValue(f.Value(strct))
		if !ok {
			return "", nil, false
		}
		args[i] = a
	}
	return ut.query, args, true
}

// bindValue is v as a prepared statement binds it so that SQLite stores
// what bun's text would have stored: times as bun writes them (timeText),
// nil pointers as NULL, strings, integers, floats and booleans as they
// are; ok is false for any other type.
func bindValue(v reflect.Value) (any, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, true
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case time.Time:
		return timeText(x), true
	case string, int64, int, float64, bool:
		return x, true
	}
	return nil, false
}
