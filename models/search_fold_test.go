package models_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// Issue 15 item 5: a search finds the same events on both dialects, with
// case, width, kana and accents folded the way MySQL's collation folds
// them, in Chinese, Japanese, Korean and accented Latin.
func TestSearchFoldsTheSameOnBothDialects(t *testing.T) {
	t.Parallel()
	modelstest.EachDB(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ed := addAccount(t, db, "ed", models.RoleEditor)
		str := func(s string) *string { return &s }
		titles := []string{"カタカナ祭り", "ひらがな講座", "ＦＵＬＬ Width Night", "ｶﾀｶﾅ半角ナイト", "夏日音乐节", "한여름 음악회", "Fête de l'Été", "Straße Festival", "パン教室"}
		for i, title := range titles {
			day := "2031-07-" + string(rune('1'+i/9)) + string(rune('1'+i%9))
			if _, err := db.CreateEvent(ctx, ed, models.EventInput{Title: str(title), StartDate: str(day + " 10:00:00"), EndDate: str(day + " 11:00:00")}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range []struct {
			query string
			want  []string
		}{
			{"かたかな", []string{"カタカナ祭り", "ｶﾀｶﾅ半角ナイト"}},
			{"ヒラガナ", []string{"ひらがな講座"}},
			{"full", []string{"ＦＵＬＬ Width Night"}},
			{"ｆｕｌｌ", []string{"ＦＵＬＬ Width Night"}},
			{"音乐", []string{"夏日音乐节"}},
			{"음악", []string{"한여름 음악회"}},
			{"fete", []string{"Fête de l'Été"}},
			{"ÉTÉ", []string{"Fête de l'Été"}},
			{"straße", []string{"Straße Festival"}},
			{"strasse", nil},
			{"ばん", []string{"パン教室"}},
		} {
			p, err := db.ListEvents(ctx, ed, models.EventFilter{Search: models.SearchWords(tt.query), PerPage: 50})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p.Items {
				got = append(got, e.Title)
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("search %q: %q, want %q", tt.query, got, want)
			}
		}
	})
}
