// Package models holds Kalends' records, the Store with one method per
// operation, filters as plain structs, and the domain rules (slugs, dates,
// visibility and permissions, translations). It imports no HTTP package:
// the JSON API and the admin both call it, so every rule lives here once.
package models
