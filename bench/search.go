package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// searchWords are the queries of the rotating search row: five in each
// language of the seeded calendar, each found in 0.5–5% of the events of
// the list it searches (checkSearchWords fails the run otherwise). The
// seeded vocabulary (models/seed.go) is small, so one of its words alone is
// in most descriptions of its language ("jazz" is in 40% of the events):
// these are two words where a space separates words (English, Korean),
// each as it ends a sentence ("jazz." is in 7%, "jazz. piano." in 0.8%),
// or starting a paragraph (the descriptions are HTML, and search looks at
// their source); and two or three words written together in Japanese and
// Chinese, which do not separate words. Some are in mixed or full-width
// case, or in hiragana for katakana, which search folds alike.
var searchWords = []string{
	"jazz. piano.", "Jazz. Wine.", "<p>coffee film.", "jazz. tea.", "ＣＯＮＣＥＲＴ. dance.",
	"じゃずピアノ", "春の夜の", "本詩", "夜の港", "写真展示",
	"爵士钢琴", "咖啡茶", "清晨市集", "舞蹈戏剧", "诗歌设计",
	"재즈。 피아노。", "커피。 차。", "<p>춤 연극。", "봄。 가을。", "<p>사진 전시。",
}

// searchRowName is the row of the rotating search words.
const searchRowName = "list, search, 20 rotating words"

// searchColdRowName is the row of the same words in searchColdWindows
// windows each, never read twice in a run.
const searchColdRowName = "list, search, 20 words × 500 windows"

// searchColdWindows is the number of windows of searchColdRowName.
const searchColdWindows = 500

// checkSearchWords reads how many events each word finds in the list the
// row loads (X-WP-Total, per_page 50, the default window), against the
// events of that list, prints them, records them in size, and fails when
// one is outside 0.5–5% (only warns on a list under minSearchList; a word
// the server answers 503 to is reported and left unknown; and only warns
// when strict is false: the row is not loaded). It returns the row's paths.
func checkSearchWords(api string, size *Size, strict bool) ([]string, error) {
	u, err := url.Parse(api)
	if err != nil {
		return nil, err
	}
	all, err := total(api + "/events?per_page=50")
	if err != nil {
		return nil, err
	}
	size.InList, size.Matches = all, map[string]int{}
	var paths, bad []string
	fmt.Fprintf(os.Stderr, "search words (events found of %d in the default list):\n", all)
	for _, w := range searchWords {
		p := u.Path + "/events?per_page=50&search=" + url.QueryEscape(w)
		paths = append(paths, p)
		n, err := total(u.Scheme + "://" + u.Host + p)
		if errors.Is(err, errUnavailable) {
			// The server gave up on it (a search of a million events
			// without an index): the row measures that; its count
			// stays unknown (-1).
			size.Matches[w] = -1
			fmt.Fprintf(os.Stderr, "  %-24s unknown: %v\n", w, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		size.Matches[w] = n
		share := float64(n) / float64(max(all, 1))
		fmt.Fprintf(os.Stderr, "  %-24s %7d  %4.2f%%\n", w, n, share*100)
		if share < 0.005 || share > 0.05 {
			bad = append(bad, fmt.Sprintf("%q finds %d of %d (%.2f%%)", w, n, all, share*100))
		}
	}
	if len(bad) > 0 {
		err := fmt.Errorf("the search row's words must each find 0.5–5%% of the events: %s", strings.Join(bad, "; "))
		if all < minSearchList || !strict {
			// A few thousand events are too few for the shares to hold
			// (0.5% of 1,000 is five events), and a run without the
			// search row needs no words: a warning only.
			fmt.Fprintf(os.Stderr, "  WARNING: %v\n", err)
			return paths, nil
		}
		return nil, err
	}
	return paths, nil
}

// minSearchList is the smallest list (events in the default window) on
// which a word outside 0.5–5% stops the run: the smallest of make bench,
// 10,000 events, has about 5,500.
const minSearchList = 5000

// errUnavailable is a 503: the server was too busy or gave up on the
// request.
var errUnavailable = errors.New("503 Service Unavailable")

// total is the X-WP-Total of a list.
func total(u string) (int, error) {
	res, err := http.Get(u) //nolint:gosec,noctx // loopback URLs the harness built
	if err != nil {
		return 0, err
	}
	_ = res.Body.Close()
	if res.StatusCode == http.StatusServiceUnavailable {
		return 0, fmt.Errorf("GET %s: %w", u, errUnavailable)
	}
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", u, res.Status)
	}
	n, err := strconv.Atoi(res.Header.Get("X-WP-Total"))
	if err != nil {
		return 0, fmt.Errorf("GET %s: X-WP-Total %q", u, res.Header.Get("X-WP-Total"))
	}
	return n, nil
}

// checkSignedIn fails when the admin page at u does not answer the session
// cookie with 200 (a redirect to the sign-in page would be measured
// instead of the page).
func checkSignedIn(u, cookie string) error {
	req, err := http.NewRequest(http.MethodGet, u, nil) //nolint:noctx // loopback, one request
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", cookie)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s signed in: %s (%s)", u, res.Status, res.Header.Get("Location"))
	}
	return nil
}
