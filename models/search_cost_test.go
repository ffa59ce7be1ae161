package models_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
)

// benchSearchWords are the words of the bench's rotating search row
// (bench/search.go), as the API splits them.
var benchSearchWords = []string{
	"jazz. piano.", "Jazz. Wine.", "<p>coffee film.", "jazz. tea.", "ＣＯＮＣＥＲＴ. dance.",
	"じゃずピアノ", "春の夜の", "本詩", "夜の港", "写真展示",
	"爵士钢琴", "咖啡茶", "清晨市集", "舞蹈戏剧", "诗歌设计",
	"재즈。 피아노。", "커피。 차。", "<p>춤 연극。", "봄。 가을。", "<p>사진 전시。",
}

// TestSearchCost measures the store's CPU time per search of the bench's
// rotating words (page of 50 and total, as the API asks, read in
// English), against the list of 50 in a three-month window, on a seeded
// calendar named by KALENDS_SEARCH_COST_DB (a copy of a bench database:
// the first open migrates it). It is skipped without it.
//
//	KALENDS_SEARCH_COST_DB=sqlite:/tmp/bench-100000.db go test ./models -run TestSearchCost -v
func TestSearchCost(t *testing.T) {
	dsn := os.Getenv("KALENDS_SEARCH_COST_DB")
	if dsn == "" {
		t.Skip("KALENDS_SEARCH_COST_DB is not set")
	}
	ctx := context.Background()
	db, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if _, err := db.MigrateAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	// The API's windows (UTC): the list of 50 from today for three
	// months; a search in the default one, from yesterday for 24 months.
	now := time.Now().UTC()
	y, m, d := now.Date()
	from, to := time.Date(y, m, d, 0, 0, 0, 0, time.UTC), time.Date(y, m+3, d, 23, 59, 59, 0, time.UTC)
	dfrom, dto := time.Date(y, m, d-1, 0, 0, 0, 0, time.UTC), time.Date(y, m+24, d, 23, 59, 59, 0, time.UTC)
	list := func(words []string) (int, error) {
		f := models.EventFilter{PerPage: 50, Lang: "en", Search: words, StartMin: &dfrom, EndMax: &dto}
		if words == nil {
			f.StartMin, f.EndMax = &from, &to
		}
		p, err := db.ListEvents(ctx, nil, f)
		if err != nil {
			return 0, err
		}
		return p.Total, nil
	}
	rounds := 5
	words := benchSearchWords
	if w := os.Getenv("KALENDS_SEARCH_COST_WORDS"); w != "" {
		words = strings.Split(w, "|")
		rounds = 50
	}
	measure := func(name string, words []string) time.Duration {
		n, err := list(words) // warm
		if err != nil {
			t.Fatal(err)
		}
		c0, w0 := cpuTime(), time.Now()
		for range rounds {
			if _, err := list(words); err != nil {
				t.Fatal(err)
			}
		}
		cpu := (cpuTime() - c0) / time.Duration(rounds)
		t.Logf("%-28s total %6d  cpu %8.3f ms  wall %8.3f ms", name, n, ms(cpu), ms(time.Since(w0)/time.Duration(rounds)))
		return cpu
	}
	base := measure("list of 50 in a window", nil)
	var sum time.Duration
	for _, w := range words {
		sum += measure(w, strings.Fields(w))
	}
	avg := sum / time.Duration(len(words))
	t.Logf("search: %.3f ms CPU per search (mean of %d words); list of 50: %.3f ms", ms(avg), len(words), ms(base))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime is the CPU time (user and system) of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
