package models

import (
	"bytes"
	"database/sql/driver"
	"strings"

	"modernc.org/sqlite"
)

// SQLite's built-in LOWER folds ASCII only, so a search for "église" (or
// even "Église", lowered in Go to "église") missed "Église" on SQLite while
// MySQL's collation found it. Replacing LOWER with a Unicode-aware one for
// every connection makes the search and duplicate conditions (LOWER(col)
// LIKE lower(word)) behave the same on both dialects.
func init() {
	err := sqlite.RegisterDeterministicScalarFunction("lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return bytes.ToLower(v), nil
		}
		return args[0], nil // NULL and numbers: nothing to fold
	})
	if err != nil {
		panic("models: register SQLite lower: " + err.Error())
	}
}
