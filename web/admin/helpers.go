package admin

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// missingLangs lists the languages a record is not yet translated into
// (its source language aside).
func missingLangs(source string, have []string) []string {
	var out []string
	for _, l := range translationLangs() {
		if l == source {
			continue
		}
		found := false
		for _, h := range have {
			found = found || h == l
		}
		if !found {
			out = append(out, l)
		}
	}
	return out
}

// recordID reads the :id of a record path (404 when it is not a number).
func recordID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fiber.ErrNotFound
	}
	return id, nil
}

// tabID names a status tab for tests ("all" for no status).
func tabID(status string) string {
	if status == "" {
		return "all"
	}
	return status
}

// indent shows a category's depth in a select (an em space per level).
func indent(depth int) string { return strings.Repeat("\u2003", depth) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// langShort is a language's short mark in the translation flags.
func langShort(code string) string {
	switch code {
	case "zh-hans":
		return "中"
	case "ja":
		return "日"
	case "ko":
		return "한"
	}
	return "EN"
}

// joinList joins names with the language's list separator.
func joinList(l layoutView, names []string) string { return strings.Join(names, listSeparator(l.Lang)) }

// listSeparator separates the items of an inline list: the ideographic
// enumeration comma in Chinese and Japanese, a comma otherwise.
func listSeparator(lang string) string {
	if lang == "zh-hans" || lang == "ja" {
		return "、"
	}
	return ", "
}
