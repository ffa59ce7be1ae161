package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// ExplainTermList returns the query plan of the page query of a term list,
// one line per plan row ("key=value …" on MySQL, the detail on SQLite).
func ExplainTermList(t testing.TB, s *Store, f TermFilter) string {
	t.Helper()
	q, args := s.termPageQuery(f, 0)
	prefix := "EXPLAIN "
	if s.dialect == SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	q, err := formatQuery(s, q, args)
	if err != nil {
		t.Fatal(err)
	}
	return explainQuery(t, s, prefix, q)
}

// ExplainPublicSpan is the query plan of PublicEventSpan's query, as
// ExplainTermList gives it.
func ExplainPublicSpan(t testing.TB, s *Store) string {
	t.Helper()
	prefix := "EXPLAIN "
	if s.dialect == SQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	q, err := formatQuery(s, publicSpanSQL, publicSpanArgs)
	if err != nil {
		t.Fatal(err)
	}
	return explainQuery(t, s, prefix, q)
}

// explainQuery runs prefix+q and returns its plan, one line per row.
func explainQuery(t testing.TB, s *Store, prefix, q string) string {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), prefix+q)
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	defer func() { _ = rows.Close() }()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if s.dialect == SQLite {
			lines = append(lines, vals[len(vals)-1].String)
			continue
		}
		var parts []string
		for i, c := range cols {
			parts = append(parts, fmt.Sprintf("%s=%s", c, vals[i].String))
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// formatQuery fills the placeholders the way bun does for NewRaw.
func formatQuery(s *Store, q string, args []any) (string, error) {
	return s.db.NewRaw(q, args...).String(), nil
}
