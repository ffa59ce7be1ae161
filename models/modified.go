package models

import (
	"time"

	"github.com/uptrace/bun"
)

// modifiedConds adds the modified_after (inclusive) and modified_before
// (exclusive) bounds on alias.updated_at, the time of a record's last
// change (issue 34). Stored times are whole seconds.
func modifiedConds(q *bun.SelectQuery, alias string, after, before *time.Time) {
	if after != nil {
		q.Where(alias+".updated_at >= ?", Sec(*after))
	}
	if before != nil {
		q.Where(alias+".updated_at < ?", Sec(*before))
	}
}
