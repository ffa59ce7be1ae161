package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The soak (make soak): the real binary on a seeded calendar of 10,000
// events, loaded on loopback by wrk for a bounded time with a mix of what a
// site sees at once: API lists over many URLs, single events, public pages,
// iCalendar feeds, admin pages of a signed-in editor, and writes (creates
// and edits through the API). Every 10 s it samples the server's resident
// memory, Go heap and goroutines. It fails when any answer is a 5xx, or when
// memory or goroutines keep growing: in the last third of the run the
// peaks of memory must stay within 25% of the second third's, and the
// median of the goroutines within 10 of it.

// Sample is one reading of the server during the soak.
type Sample struct {
	At         float64 `json:"at_s"`
	RSSAnonKB  int64   `json:"rss_anon_kb"`
	HeapKB     int64   `json:"heap_inuse_kb"`
	Goroutines int64   `json:"goroutines"`
}

// SoakReport is what make soak writes.
type SoakReport struct {
	Machine  string         `json:"machine"`
	When     string         `json:"when"`
	Duration float64        `json:"duration_s"`
	Requests int64          `json:"requests"`
	ReqPerS  float64        `json:"req_per_s"`
	Status   map[string]int `json:"status_classes"`
	Samples  []Sample       `json:"samples"`
	Verdict  string         `json:"verdict"`
}

// soakLua mixes the requests: each wrk request picks one by weight.
func soakLua(api, auth, cookie string, eventID int64, slug string, paths []string) string {
	var b strings.Builder
	b.WriteString("local lists = {\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "  %q,\n", p)
	}
	body := `{"title":"Soak event","start_date":"2027-06-01 10:00:00","end_date":"2027-06-01 12:00:00","categories":["music"],"tags":["live"],"description":"` +
		strings.Repeat("Soak text ", 30) + `","status":"publish"}`
	fmt.Fprintf(&b, `}
local auth, cookie = %q, %q
local post = %q
local mix = {
  {40, function() return wrk.format("GET", lists[math.random(#lists)]) end},
  {10, function() return wrk.format("GET", %q) end},
  {10, function() return wrk.format("GET", (math.random(2) == 1) and "/events/" or %q) end},
  {10, function() return wrk.format("GET", (math.random(2) == 1) and "/events.ics" or "/events.ics?categories=music") end},
  {10, function()
      local pages = {"/admin/", "/admin/events", "/admin/calendar", "/admin/venues"}
      return wrk.format("GET", pages[math.random(#pages)], {["Cookie"] = cookie})
    end},
  {12, function() return wrk.format("POST", %q, {["Authorization"] = auth, ["Content-Type"] = "application/json"}, post) end},
  {8, function()
      return wrk.format("PATCH", %q, {["Authorization"] = auth, ["Content-Type"] = "application/json"},
        '{"title":"Soak edit ' .. math.random(1000000) .. '"}')
    end},
}
local total = 0
for _, m in ipairs(mix) do total = total + m[1] end
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) c2, c3, c4, c5 = 0, 0, 0, 0 end
function request()
  local r = math.random(total)
  for _, m in ipairs(mix) do
    r = r - m[1]
    if r <= 0 then return m[2]() end
  end
end
function response(status, headers, body)
  if status >= 500 then c5 = c5 + 1 elseif status >= 400 then c4 = c4 + 1 elseif status >= 300 then c3 = c3 + 1 else c2 = c2 + 1 end
end
function done(summary, latency, requests)
  local t2, t3, t4, t5 = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    t2 = t2 + t:get("c2"); t3 = t3 + t:get("c3"); t4 = t4 + t:get("c4"); t5 = t5 + t:get("c5")
  end
  io.write(string.format("SOAK %%d %%d %%d %%d %%d\n", t2, t3, t4, t5, summary.requests))
end
`, auth, cookie, body, fmt.Sprintf("/cal/events/v1/events/%d", eventID), "/event/"+slug+"/", api+"/events", fmt.Sprintf("%s/events/%d", api, eventID))
	return b.String()
}

// signIn signs the user in to the admin and returns the session cookie as
// a Cookie header value.
func signIn(base, login, password string) (string, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/admin/login") //nolint:noctx // loopback, bounded by the client timeout
	if err != nil {
		return "", err
	}
	page, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		return "", errors.New("no sign-in token on /admin/login")
	}
	form := url.Values{"login": {login}, "password": {password}, "_csrf": {string(m[1])}}
	res, err = client.PostForm(base+"/admin/login", form) //nolint:noctx // loopback, bounded by the client timeout
	if err != nil {
		return "", err
	}
	_ = res.Body.Close()
	u, _ := url.Parse(base + "/admin/")
	for _, c := range jar.Cookies(u) {
		if c.Name == "kalends_session" {
			return c.Name + "=" + c.Value, nil
		}
	}
	return "", fmt.Errorf("sign-in gave %d and no session", res.StatusCode)
}

// sample reads the server's memory and goroutines.
func sample(pid int, debug string, start time.Time) Sample {
	s := Sample{At: time.Since(start).Seconds()}
	s.RSSAnonKB, _ = memory(pid)
	if b, err := get(debug + "/debug/vars"); err == nil {
		var v struct {
			Mem struct {
				HeapInuse int64 `json:"HeapInuse"`
			} `json:"memstats"`
			Kalends struct {
				Goroutines int64 `json:"goroutines"`
			} `json:"kalends"`
		}
		if json.Unmarshal(b, &v) == nil {
			s.HeapKB, s.Goroutines = v.Mem.HeapInuse>>10, v.Kalends.Goroutines
		}
	}
	return s
}

func runSoak(ctx context.Context, c config, dur time.Duration) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return errors.New("wrk is not installed: apt-get install wrk (Debian), then run again")
	}
	tmp, err := os.MkdirTemp("", "kalends-soak-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bin := tmp + "/kalends"
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kalends")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	db := dbFor(c, tmp, 10000)
	kal := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, bin, append([]string{"--db", db}, args...)...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return "", fmt.Errorf("kalends %s: %w\n%s", strings.Join(args, " "), err, ee.Stderr)
			}
			return "", err
		}
		return string(out), nil
	}
	fmt.Fprintln(os.Stderr, "soak: seeding 10000 events…")
	if _, err := kal("seed", "--events", "10000", "--seed", "1", "--force"); err != nil {
		return err
	}
	if _, err := kal("user", "create", "--login", "soak", "--password", "soak-password-1", "--role", "editor"); err != nil &&
		!strings.Contains(err.Error(), "already exists") {
		return err
	}
	pw, err := kal("app-password", "create", "--login", "soak", "--name", "soak")
	if err != nil {
		return err
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("soak:"+strings.TrimSpace(pw)))
	base, dbg, proc, stop, err := startServer(ctx, bin, db, tmp, "soak")
	if err != nil {
		return err
	}
	defer stop()
	cookie, err := signIn(base, "soak", "soak-password-1")
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	api := "/cal/events/v1"
	body, err := get(base + api + "/events?per_page=1")
	if err != nil {
		return err
	}
	var page struct {
		Events []struct {
			ID   int64  `json:"id"`
			Slug string `json:"slug"`
		} `json:"events"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Events) == 0 {
		return fmt.Errorf("no event to read: %w", err)
	}
	now := time.Now().UTC()
	var paths []string
	for i := range 200 {
		from := now.AddDate(0, 0, i%60-30)
		p := fmt.Sprintf("%s/events?per_page=%d&page=%d&start_date=%s&end_date=%s", api, []int{10, 20, 50}[i%3], 1+i%3,
			from.Format(time.DateOnly), from.AddDate(0, 2, 0).Format(time.DateOnly))
		if i%4 == 0 {
			p += "&ml_language=" + []string{"ja", "zh-hans", "ko", "en"}[i%16/4]
		}
		paths = append(paths, p)
	}
	script, err := writeScript(tmp, "soak.lua", soakLua(api, auth, cookie, page.Events[0].ID, page.Events[0].Slug, paths))
	if err != nil {
		return err
	}
	start := time.Now()
	samples := []Sample{sample(proc.Pid, "http://"+dbg, start)}
	done := make(chan struct{})
	var out []byte
	var werr error
	go func() {
		defer close(done)
		cmd := exec.CommandContext(ctx, wrk, "-t2", "-c8", "-d"+strconv.Itoa(int(dur.Seconds()))+"s", "--timeout", "10s", "-s", script, base+"/")
		out, werr = cmd.CombinedOutput()
	}()
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	fmt.Fprintf(os.Stderr, "soak: %s of mixed load…\n", dur)
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			s := sample(proc.Pid, "http://"+dbg, start)
			samples = append(samples, s)
			fmt.Fprintf(os.Stderr, "  %5.0fs  RSS %6d kB  heap %6d kB  goroutines %d\n", s.At, s.RSSAnonKB, s.HeapKB, s.Goroutines)
		}
	}
	if werr != nil {
		return fmt.Errorf("wrk: %w\n%s", werr, out)
	}
	rep := SoakReport{Machine: machine(), When: start.UTC().Format(time.RFC3339), Duration: time.Since(start).Seconds(), Samples: samples}
	m := regexp.MustCompile(`SOAK (\d+) (\d+) (\d+) (\d+) (\d+)`).FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("wrk gave no counts:\n%s", out)
	}
	n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
	rep.Status = map[string]int{"2xx": n(1), "3xx": n(2), "4xx": n(3), "5xx": n(4)}
	rep.Requests = int64(n(5))
	rep.ReqPerS = float64(rep.Requests) / rep.Duration
	rep.Verdict = soakVerdict(rep)
	fmt.Printf("soak: %d requests in %.0f s (%.0f/s): %v\n", rep.Requests, rep.Duration, rep.ReqPerS, rep.Status)
	fmt.Println("soak:", rep.Verdict)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.out, append(b, '\n'), 0o600); err != nil {
		return err
	}
	if !strings.HasPrefix(rep.Verdict, "flat") {
		return errors.New("the soak failed: " + rep.Verdict)
	}
	return nil
}

// soakVerdict compares the last third of the samples with the second
// third (the first is warm-up: caches fill, pools grow).
func soakVerdict(r SoakReport) string {
	if r.Status["5xx"] > 0 {
		return fmt.Sprintf("%d answers were 5xx", r.Status["5xx"])
	}
	k := len(r.Samples) / 3
	if k < 2 {
		return "too short to judge: run at least a minute"
	}
	peak := func(s []Sample, f func(Sample) int64) int64 {
		var m int64
		for _, x := range s {
			m = max(m, f(x))
		}
		return m
	}
	mid, last := r.Samples[k:2*k], r.Samples[2*k:]
	rss := func(s Sample) int64 { return s.RSSAnonKB }
	heap := func(s Sample) int64 { return s.HeapKB }
	gor := func(s Sample) int64 { return s.Goroutines }
	switch {
	case peak(last, rss) > peak(mid, rss)*5/4:
		return fmt.Sprintf("memory grows: RSS peak %d kB in the last third, %d kB in the second", peak(last, rss), peak(mid, rss))
	case peak(last, heap) > peak(mid, heap)*5/4:
		return fmt.Sprintf("heap grows: peak %d kB in the last third, %d kB in the second", peak(last, heap), peak(mid, heap))
	case median(last, gor) > median(mid, gor)+10:
		// Goroutines come and go with the requests in flight, so their
		// peaks are noise; a leak lifts the median.
		return fmt.Sprintf("goroutines grow: median %d in the last third, %d in the second", median(last, gor), median(mid, gor))
	}
	return fmt.Sprintf("flat: RSS peak %d → %d kB, heap peak %d → %d kB, goroutines median %d → %d (peak %d → %d) (second third → last third); no 5xx",
		peak(mid, rss), peak(last, rss), peak(mid, heap), peak(last, heap), median(mid, gor), median(last, gor), peak(mid, gor), peak(last, gor))
}

// median is the middle value of f over s.
func median(s []Sample, f func(Sample) int64) int64 {
	v := make([]int64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}
