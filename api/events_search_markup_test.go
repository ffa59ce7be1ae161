package api

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

// TestSearchAcrossMarkupAndPairTotalsThroughTheAPI: the search index's
// pieces (cut at "<" and ">") and the totals of one category with one
// venue (their pair's buckets) hold through the HTTP API, with the query
// as a client sends it (percent-encoded markup, a Korean word, an accented
// word typed decomposed) and records named in Korean, Japanese and French.
func TestSearchAcrossMarkupAndPairTotalsThroughTheAPI(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 3).Add(19 * time.Hour)
		mk := func(i int, title, desc, cat, venue string) {
			s := start.AddDate(0, 0, i)
			e.createEvent(t, map[string]any{"title": title, "description": desc,
				"start_date": s.Format(time.DateTime), "end_date": s.Add(2 * time.Hour).Format(time.DateTime),
				"categories": []any{map[string]any{"name": cat}}, "venue": map[string]any{"venue": venue}})
		}
		mk(0, "재즈의 밤", "<p>재즈 <b>café</b></p><p>crème brûlée</p>", "音楽祭", "Salle Pleyel à Paris")
		mk(1, "ジャズの夕べ", "<p>café crème</p>", "音楽祭", "東京文化会館")
		mk(2, "Théâtre", "<p>재즈</p>", "Théâtre", "Salle Pleyel à Paris")
		for _, c := range []struct {
			q    string
			want int
		}{
			{"<p>재즈", 2},          // a pair of pieces
			{"<b>café</b>", 1},    // a phrase of pieces
			{"é</b></p><p>cr", 1}, // across four split points
			{norm.NFD.String("<b>café"), 1},
			{"<p>café", 1},
			{"café", 2},
			{"</p><p>", 1},
		} {
			if n, _ := e.listTotal(t, "search="+url.QueryEscape(c.q), ""); n != c.want {
				t.Errorf("search %q: %d events, want %d", c.q, n, c.want)
			}
		}
		// One category with one venue: the total from their pair's buckets,
		// in a window whose edges cut no event.
		window := fmt.Sprintf("start_date=%s&end_date=%s", start.AddDate(0, 0, -2).Format(time.DateOnly), start.AddDate(0, 0, 10).Format(time.DateOnly))
		_, all := e.listTotal(t, "per_page=50&"+window, "")
		venues := map[string]float64{}
		for _, ev := range all["events"].([]any) {
			v := ev.(map[string]any)["venue"].(map[string]any)
			venues[v["venue"].(string)] = v["id"].(float64)
		}
		for _, c := range []struct {
			cat, venue string
			want       int
		}{{"音楽祭", "Salle Pleyel à Paris", 1}, {"音楽祭", "東京文化会館", 1}, {"Théâtre", "Salle Pleyel à Paris", 1}, {"Théâtre", "東京文化会館", 0}} {
			q := fmt.Sprintf("categories=%s&venue=%d&%s", url.QueryEscape(c.cat), int64(venues[c.venue]), window)
			if n, _ := e.listTotal(t, q, ""); n != c.want {
				t.Errorf("%s at %s: %d events, want %d", c.cat, c.venue, n, c.want)
			}
		}
	})
}
