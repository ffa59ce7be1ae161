package main

// The change feed and the webhooks through the failover (issues 25 and
// 34): a follower reads GET /changes from the cursor taken before the load
// until the end, and a receiver on loopback takes the webhooks of an
// endpoint registered before the load. At the end every acknowledged
// write must be in the feed after the start cursor, the cursor must never
// have gone back, and every acknowledged write's change must have arrived
// at least once, signed as Standard Webhooks says.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

const cursorHeader = "X-Kalends-Changes-Cursor"

// decodeCursor reads the feed's opaque cursor ("kc1.N" in base64url), to
// tell whether it ever went back.
func decodeCursor(s string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, err
	}
	n, ok := strings.CutPrefix(string(b), "kc1.")
	if !ok {
		return 0, fmt.Errorf("cursor %q: not kc1", s)
	}
	return strconv.ParseInt(n, 10, 64)
}

// feedFollower follows the change feed as the admin (who sees every
// change) through HAProxy.
type feedFollower struct {
	front, auth string

	mu       sync.Mutex
	cursor   string
	seq      int64
	startSeq int64
	seen     map[int64]int // event id → entries after the start cursor
	pages    int
	entries  int
	wentBack int
	errs     int
}

// start takes the cursor of a list answer, as a client copying the lists
// would, before the load.
func (f *feedFollower) start() error {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, f.front+"/cal/events/v1/events?per_page=1", nil)
	req.Header.Set("Authorization", f.auth)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	c := res.Header.Get(cursorHeader)
	seq, err := decodeCursor(c)
	if err != nil {
		return fmt.Errorf("the list's %s %q: %w", cursorHeader, c, err)
	}
	f.cursor, f.seq, f.startSeq, f.seen = c, seq, seq, map[int64]int{}
	return nil
}

// run reads the feed until ctx ends.
func (f *feedFollower) run(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := f.poll(ctx)
		if err != nil && ctx.Err() == nil {
			f.mu.Lock()
			f.errs++
			f.mu.Unlock()
		}
		if n == 0 || err != nil {
			sleep(ctx, 300*time.Millisecond)
		}
	}
}

// poll reads one page after the cursor and moves it.
func (f *feedFollower) poll(ctx context.Context) (int, error) {
	f.mu.Lock()
	cursor := f.cursor
	f.mu.Unlock()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.front+"/cal/events/v1/changes?per_page=500&cursor="+url.QueryEscape(cursor), nil)
	req.Header.Set("Authorization", f.auth)
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return 0, err
	}
	switch {
	case res.StatusCode == http.StatusServiceUnavailable:
		return 0, fmt.Errorf("503")
	case res.StatusCode == http.StatusGone:
		fail("the change feed answered 410 (cursor expired) for a cursor of this run")
		return 0, fmt.Errorf("410")
	case res.StatusCode != http.StatusOK:
		fail("the change feed answered %d: %.200s", res.StatusCode, b)
		return 0, fmt.Errorf("%d", res.StatusCode)
	}
	var page struct {
		Changes []struct {
			Kind   string `json:"kind"`
			ID     int64  `json:"id"`
			Action string `json:"action"`
		} `json:"changes"`
		Cursor string `json:"cursor"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		fail("the change feed's answer: %v", err)
		return 0, err
	}
	seq, err := decodeCursor(page.Cursor)
	if err != nil {
		fail("the change feed's cursor: %v", err)
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if seq < f.seq {
		f.wentBack++
		fail("the change feed's cursor went back from %d to %d", f.seq, seq)
	}
	for _, c := range page.Changes {
		if c.Kind == "event" {
			f.seen[c.ID]++
		}
	}
	f.cursor, f.seq = page.Cursor, max(seq, f.seq)
	f.pages++
	f.entries += len(page.Changes)
	return len(page.Changes), nil
}

// missing lists the events whose acknowledged writes the feed has not
// all shown yet (want: event id → acknowledged writes).
func (f *feedFollower) missing(want map[int64]int) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int64
	for id, n := range want {
		if f.seen[id] < n {
			out = append(out, id)
		}
	}
	return out
}

// checkFeed reads the feed on until it holds every acknowledged write, for
// 30 s at most.
func (f *feedFollower) check(ctx context.Context, want map[int64]int) string {
	deadline := time.Now().Add(30 * time.Second)
	for {
		miss := f.missing(want)
		if len(miss) == 0 {
			break
		}
		if time.Now().After(deadline) {
			fail("the change feed lacks the acknowledged writes of %d events, e.g. %v", len(miss), miss[:min(len(miss), 10)])
			break
		}
		if n, err := f.poll(ctx); n == 0 || err != nil {
			sleep(ctx, 300*time.Millisecond)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	writes := 0
	for _, n := range want {
		writes += n
	}
	return fmt.Sprintf("%d acknowledged writes of %d events all in the feed after the start cursor %d; %d entries in %d pages up to %d; cursor went back %d times; %d pages failed (503 or cut off) and were read again",
		writes, len(want), f.startSeq, f.entries, f.pages, f.seq, f.wentBack, f.errs)
}

// hookReceiver is the webhook endpoint: it checks each delivery's
// signature and counts the deliveries per event and message.
type hookReceiver struct {
	secret string
	srv    *http.Server
	url    string

	mu       sync.Mutex
	receipts int
	badSig   int
	byMsg    map[string]int            // webhook-id → receipts
	perEvent map[int64]map[string]bool // event id → its distinct webhook-ids
}

func newHookReceiver() (*hookReceiver, error) {
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hookReceiver{byMsg: map[string]int{}, perEvent: map[int64]map[string]bool{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	h.url = "http://" + ln.Addr().String() + "/hook"
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

// verify checks a delivery as Standard Webhooks says: one of the
// space-separated "v1,<base64>" signatures is the HMAC-SHA256 of
// "id.timestamp.body" keyed with the secret's base64 part, and the
// timestamp is within five minutes.
func verify(secret, id, ts, sigs string, body []byte) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || id == "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(sigs) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	secret := h.secret
	h.mu.Unlock()
	id := r.Header.Get("webhook-id")
	if !verify(secret, id, r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), body) {
		h.mu.Lock()
		h.badSig++
		h.mu.Unlock()
		fail("a webhook delivery with a bad signature: id %q", id)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var msg struct {
		Type string `json:"type"`
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		fail("a webhook delivery that is not JSON: %v", err)
		http.Error(w, "json", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.receipts++
	h.byMsg[id]++
	if strings.HasPrefix(msg.Type, "event.") {
		if h.perEvent[msg.Data.ID] == nil {
			h.perEvent[msg.Data.ID] = map[string]bool{}
		}
		h.perEvent[msg.Data.ID][id] = true
	}
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// register adds the endpoint with the kalends CLI and keeps its secret.
func (h *hookReceiver) register(ctx context.Context, e env) error {
	bin := *binary
	if bin == "" {
		bin = filepath.Join(e["KALENDS_CLUSTER_DIR"], "kalends")
	}
	cmd := exec.CommandContext(ctx, bin, "--db", e["KALENDS_CLUSTER_DSN"], "webhook", "add", //nolint:gosec // the kalends binary under test
		"--description", "cluster test", h.url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("kalends webhook add: %w: %s", err, stderr.String())
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || !strings.HasPrefix(f[1], "whsec_") {
		return fmt.Errorf("kalends webhook add printed %q, want ID SECRET", out)
	}
	h.mu.Lock()
	h.secret = f[1]
	h.mu.Unlock()
	return nil
}

// check waits, 60 s at most, until every acknowledged write an anonymous
// reader sees (want: event id → such writes) arrived at least once.
func (h *hookReceiver) check(want map[int64]int) string {
	deadline := time.Now().Add(60 * time.Second)
	start := time.Now()
	var miss []int64
	for {
		miss = miss[:0]
		h.mu.Lock()
		for id, n := range want {
			if len(h.perEvent[id]) < n {
				miss = append(miss, id)
			}
		}
		h.mu.Unlock()
		if len(miss) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(miss) > 0 {
		fail("webhooks: the changes of %d events did not arrive within 60 s, e.g. %v", len(miss), miss[:min(len(miss), 10)])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	dups := h.receipts - len(h.byMsg)
	writes := 0
	for _, n := range want {
		writes += n
	}
	return fmt.Sprintf("%d deliveries (%d distinct messages, %d duplicates, %d bad signatures) hold the %d acknowledged writes of %d events (waited %s after the load)",
		h.receipts, len(h.byMsg), dups, h.badSig, writes, len(want), time.Since(start).Round(time.Millisecond))
}
