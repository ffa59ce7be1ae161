package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// The hostile sweep sends bad input to every endpoint of Routes(): every
// method (HEAD, OPTIONS and unknown verbs included), id and slug routes
// with existing and missing records, anonymous, as a contributor and as an
// administrator, on both dialects. Per argument it samples values from
// hostileValues() in a random encoding (JSON body, form body, multipart,
// query string); per endpoint it sends every body of hostileBodies. It
// asserts the invariants of SPEC §2: no 5xx, a WordPress error body whose
// data.status is the HTTP status on every 4xx, an answer within seconds,
// and nothing written by a request that failed or came from an anonymous
// caller. The seed is fixed, so a failure reproduces.

const (
	hostileSeed        = 20261122
	hostilePerArg      = 6 // hostile values per argument and endpoint
	hostileMaxDuration = 4 * time.Second
)

var hostileRoles = []models.Role{"", models.RoleContributor, models.RoleAdministrator}

// hostileMethods are tried on every path: the route's own and the rest.
var hostileMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", "PROPFIND", "TRACE"}

// nestedTemplates wrap a hostile value V in the shapes raw arguments take
// (ARG is the argument's name: an inline venue needs its "venue" field).
var nestedTemplates = []string{`{"id":V}`, `[{"id":V}]`, `{"name":V}`, `[{"name":V},{"id":V}]`, `[V]`, `[1,V]`,
	`{"ARG":V}`, `{"ARG":"Nested","description":V,"city":V,"email":V,"website":V,"geo_lat":V,"status":V}`,
	`[{"ARG":"Nested","phone":V},{"ARG":V}]`, `{"values":V}`}

var groupRe = regexp.MustCompile(`\(\?P<(\w+)>[^)]*\)`)

// sweep is the state of one dialect's sweep.
type sweep struct {
	t     *testing.T
	e     *testEnv
	rng   *rand.Rand
	table []Route
	// fixtures: collection pattern ("/venues") -> id and slug of a live record.
	fixtures map[string][2]string
	writes   *atomic.Int64 // data-changing statements seen by the hook
	print    string        // fingerprint of the data after the last change
	failures []string
	stats    map[int]int
	n        int
	slowest  time.Duration
	slowReq  string
}

// hostileReq is one request of the sweep.
type hostileReq struct {
	what, method, target, ct string
	body                     []byte
	as                       models.Role
}

func TestHostileInputSweep(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		t.Parallel()
		s := &sweep{t: t, e: e, rng: rand.New(rand.NewPCG(hostileSeedFromEnv(t), 1)), table: prepareRoutes(Routes()),
			fixtures: map[string][2]string{}, writes: &atomic.Int64{}, stats: map[int]int{}}
		e.DB.AddQueryHook(writeCounter{s.writes})
		for i := range s.table {
			s.fixture(&s.table[i])
		}
		s.print = s.fingerprint()
		for i := range s.table {
			s.route(&s.table[i])
		}
		s.bodyLimit()
		t.Logf("%d requests, statuses %v, slowest %v: %s", s.n, s.stats, s.slowest, s.slowReq)
		for i, f := range s.failures {
			if i == 40 {
				t.Errorf("… and %d more", len(s.failures)-40)
				break
			}
			t.Error(f)
		}
	})
}

// hostileSeedFromEnv is hostileSeed, or KALENDS_HOSTILE_SEED to explore
// other samples (a failure names its request, so it reproduces either way).
func hostileSeedFromEnv(t *testing.T) uint64 {
	if v := os.Getenv("KALENDS_HOSTILE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("KALENDS_HOSTILE_SEED: %v", err)
		}
		return n
	}
	return hostileSeed
}

// collection returns the pattern of the collection an item route belongs to.
func collection(pattern string) string {
	if i := strings.Index(pattern, "/(?P<"); i >= 0 {
		pattern = pattern[:i]
	}
	return strings.TrimSuffix(pattern, "/by-slug")
}

// validValue is a plausible value for a required argument of a create.
func validValue(a *Arg, n int) any {
	switch a.Kind {
	case KInt, KPositiveInt:
		return 1
	case KBool:
		return false
	case KNumber:
		return 1.5
	case KDate:
		if strings.Contains(a.Name, "end") {
			return "2027-03-10 11:00:00"
		}
		return "2027-03-10 09:00:00"
	case KIntList:
		return []int{}
	case KStringList:
		return []string{"x"}
	case KEnum:
		return a.Enum[0]
	case KURL:
		return "https://example.test/"
	case KEmail:
		return "fixture@example.test"
	case KStatus:
		return models.StatusPublish
	case KTimezone:
		return "UTC"
	}
	return fmt.Sprintf("Hostile fixture %d", n)
}

// fixture creates (again) a record through the collection's POST as an
// administrator, filling the required arguments, and remembers its id and
// slug. A collection whose create cannot be satisfied this way keeps only
// missing records in the sweep.
func (s *sweep) fixture(rt *Route) {
	if strings.Contains(rt.Pattern, "(?P<") {
		return
	}
	ep := endpointFor(rt, "POST")
	if ep == nil {
		return
	}
	body := map[string]any{}
	for i := range ep.Args {
		if ep.Args[i].Required {
			body[ep.Args[i].Name] = validValue(&ep.Args[i], s.n)
		}
	}
	s.n++
	res := s.e.do(s.t, "POST", "/"+Namespace+rt.Pattern, body, models.RoleAdministrator)
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		s.t.Logf("fixture %s: %d %.300s (only missing records are swept)", rt.Pattern, res.Status, res.Body)
		return
	}
	var m map[string]any
	if json.Unmarshal(res.Body, &m) != nil {
		return
	}
	id := fmt.Sprint(m["id"])
	if f, ok := m["id"].(float64); ok {
		id = fmt.Sprintf("%d", int64(f))
	}
	slug, _ := m["slug"].(string)
	s.fixtures[rt.Pattern] = [2]string{id, slug}
}

// paths returns the concrete paths of a route: existing and missing
// records, odd ids and slugs.
func (s *sweep) paths(rt *Route) []string {
	groups := groupRe.FindAllStringSubmatch(rt.Pattern, -1)
	if len(groups) == 0 {
		return []string{rt.Pattern}
	}
	fx, has := s.fixtures[collection(rt.Pattern)]
	var values []string
	switch groups[0][1] {
	case "id":
		values = []string{"999999999", "0", "99999999999999999999"}
		if has {
			values = append(values, fx[0])
		}
	case "slug":
		values = []string{"no-such-slug", "%FF%FE", "%00", "%E2%80%8B", "a%2Fb", strings.Repeat("s", 1000)}
		if has && fx[1] != "" {
			values = append(values, url.PathEscape(fx[1]))
		}
	default:
		values = []string{"1"}
	}
	var out []string
	for _, v := range values {
		out = append(out, groupRe.ReplaceAllLiteralString(rt.Pattern, v))
	}
	return out
}

// route sweeps one route.
func (s *sweep) route(rt *Route) {
	for _, p := range s.paths(rt) {
		for _, m := range hostileMethods {
			for _, as := range hostileRoles {
				s.send(hostileReq{what: "bare", method: m, target: "/" + Namespace + p, as: as}, rt)
			}
		}
	}
	for i := range rt.Endpoints {
		ep := &rt.Endpoints[i]
		names := make([]string, 0, len(ep.Args)+len(hostileNames))
		for _, a := range ep.Args {
			names = append(names, a.Name)
		}
		names = append(names, hostileNames...)
		vals := hostileValues()
		for _, name := range names {
			for _, k := range s.rng.Perm(len(vals))[:hostilePerArg] {
				s.sendValue(rt, ep, name, vals[k])
			}
		}
		// Raw arguments (linked records, cost, term filters) take objects
		// and lists: hostile values go inside them too.
		for ai := range ep.Args {
			a := &ep.Args[ai]
			if a.Kind != KRaw {
				continue
			}
			for _, k := range s.rng.Perm(len(vals))[:3*hostilePerArg] {
				v := vals[k]
				if v.json == "" {
					continue
				}
				tmpl := nestedTemplates[s.rng.IntN(len(nestedTemplates))]
				j := strings.ReplaceAll(strings.ReplaceAll(tmpl, "ARG", a.Name), "V", v.json)
				s.sendValue(rt, ep, a.Name, hostileValue{label: "nested " + tmpl + " V=" + v.label, json: j})
			}
		}
		// Duplicate keys in JSON, and the same argument in the query and
		// the body with different types.
		if len(ep.Args) > 0 {
			a := jsonKey(ep.Args[s.rng.IntN(len(ep.Args))].Name)
			paths := s.paths(rt)
			for _, body := range []string{"{" + a + ":1," + a + `:"x"}`, "{" + a + ":{}," + a + ":[]}"} {
				s.send(hostileReq{what: "duplicate JSON key", method: ep.Methods[s.rng.IntN(len(ep.Methods))],
					target: "/" + Namespace + paths[s.rng.IntN(len(paths))] + "?" + strings.Trim(a, `"`) + "[]=1",
					ct:     "application/json", body: []byte(body), as: hostileRoles[s.rng.IntN(len(hostileRoles))]}, rt)
			}
		}
		for _, b := range hostileBodies {
			paths := s.paths(rt)
			s.send(hostileReq{what: "body " + b.label, method: ep.Methods[s.rng.IntN(len(ep.Methods))],
				target: "/" + Namespace + paths[s.rng.IntN(len(paths))], ct: b.ct, body: []byte(b.body),
				as: hostileRoles[s.rng.IntN(len(hostileRoles))]}, rt)
		}
	}
}

// sendValue sends one hostile value of one argument in an encoding the
// value and the method allow.
func (s *sweep) sendValue(rt *Route, ep *Endpoint, name string, v hostileValue) {
	method := ep.Methods[s.rng.IntN(len(ep.Methods))]
	if method == "GET" && s.rng.IntN(4) == 0 {
		method = "HEAD"
	}
	paths := s.paths(rt)
	req := hostileReq{what: fmt.Sprintf("arg %q = %s", name, v.label), method: method,
		target: "/" + Namespace + paths[s.rng.IntN(len(paths))], as: hostileRoles[s.rng.IntN(len(hostileRoles))]}
	var encs []string
	if v.json != "" {
		encs = append(encs, "json")
	}
	if v.form != nil {
		if !v.big && len(req.target)+len(v.form(url.QueryEscape(name))) < 3500 {
			encs = append(encs, "query")
		}
		if method != "GET" && method != "HEAD" {
			encs = append(encs, "form")
			if !v.big {
				encs = append(encs, "multipart")
			}
		}
	}
	if len(encs) == 0 {
		return
	}
	switch enc := encs[s.rng.IntN(len(encs))]; enc {
	case "json":
		req.ct, req.body = "application/json", []byte("{"+jsonKey(name)+":"+v.json+"}")
	case "query":
		req.target += "?" + v.form(url.QueryEscape(name))
	case "form":
		req.ct, req.body = "application/x-www-form-urlencoded", []byte(v.form(url.QueryEscape(name)))
	case "multipart":
		req.ct, req.body = multipartOf(v.form(url.QueryEscape(name)))
	}
	if len(req.body) > BodyLimit {
		return // bodyLimit covers oversized bodies
	}
	req.what += " (" + map[bool]string{true: "json", false: "form"}[req.ct == "application/json"] + ")"
	s.send(req, rt)
}

// jsonKey quotes a key for a JSON body (keeping invalid bytes raw).
func jsonKey(k string) string {
	b, _ := json.Marshal(k)
	if strings.ContainsRune(string(b), '\ufffd') {
		return `"` + k + `"`
	}
	return string(b)
}

// multipartOf turns an escaped form fragment into a multipart body.
func multipartOf(frag string) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range strings.Split(frag, "&") {
		k, v, _ := strings.Cut(p, "=")
		_ = w.WriteField(unescape(k), unescape(v))
	}
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

// send runs one request and checks the invariants.
func (s *sweep) send(q hostileReq, rt *Route) {
	s.n++
	req, err := http.NewRequest(q.method, "http://example.test/", bytes.NewReader(q.body))
	if err != nil {
		s.t.Fatal(err)
	}
	path, query, _ := strings.Cut(q.target, "?")
	req.URL.Opaque = path // sent as is: escapes and odd bytes reach the server unchanged
	req.URL.RawQuery = query
	if q.ct != "" {
		req.Header.Set("Content-Type", q.ct)
	}
	if q.as != "" {
		req.SetBasicAuth(string(q.as), s.e.passwords[q.as])
	}
	before := s.writes.Load()
	start := time.Now()
	res, err := s.e.App.Test(req, int(hostileMaxDuration/time.Millisecond)*2)
	took := time.Since(start)
	if took > s.slowest {
		s.slowest, s.slowReq = took, q.method+" "+q.target[:min(len(q.target), 100)]+" ["+q.what+"]"
	}
	if err != nil {
		s.fail(q, 0, nil, fmt.Sprintf("no answer: %v", err))
		return
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	s.stats[res.StatusCode]++
	status := res.StatusCode
	switch {
	case status >= 500:
		s.fail(q, status, body, "server error")
	case took > hostileMaxDuration:
		s.fail(q, status, body, fmt.Sprintf("took %v", took))
	case res.Header.Get("Content-Type") != contentTypeJSON:
		s.fail(q, status, body, "content type "+res.Header.Get("Content-Type"))
	case q.method != "HEAD" && status >= 400:
		if msg := checkErrorBody(body, status); msg != "" {
			s.fail(q, status, body, msg)
		}
	case q.method == "HEAD" && len(body) > 0:
		s.fail(q, status, body, "HEAD with a body")
	case q.method != "HEAD" && !json.Valid(body):
		s.fail(q, status, body, "body is not JSON")
	}
	write := q.method == "POST" || q.method == "PUT" || q.method == "PATCH" || q.method == "DELETE"
	if write && q.as == "" && status < 300 {
		s.fail(q, status, body, "anonymous write succeeded")
	}
	if s.writes.Load() == before {
		return
	}
	// Something was written: it must have been a successful write.
	print := s.fingerprint()
	if print != s.print && (status >= 300 || q.as == "") {
		s.fail(q, status, body, "data changed by a request that failed or was anonymous")
	}
	s.print = print
	if write && status < 300 && strings.Contains(rt.Pattern, "(?P<") {
		s.fixture(s.collectionRoute(rt)) // the record may be gone or renamed
		s.print = s.fingerprint()
	}
}

func (s *sweep) collectionRoute(rt *Route) *Route {
	c := collection(rt.Pattern)
	for i := range s.table {
		if s.table[i].Pattern == c {
			return &s.table[i]
		}
	}
	return rt
}

// checkErrorBody checks the WordPress error shape; "" when fine.
func checkErrorBody(body []byte, status int) string {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return "error body is not a JSON object"
	}
	code, _ := m["code"].(string)
	msg, _ := m["message"].(string)
	data, _ := m["data"].(map[string]any)
	switch {
	case code == "":
		return "error body without code"
	case msg == "":
		return "error body without message"
	case data == nil || data["status"] != float64(status):
		return "data.status differs from the HTTP status"
	}
	return ""
}

func (s *sweep) fail(q hostileReq, status int, body []byte, why string) {
	b := q.body
	if len(b) > 200 {
		b = append(b[:200:200], "…"...)
	}
	target := q.target
	if len(target) > 300 {
		target = target[:300] + "…"
	}
	s.failures = append(s.failures, fmt.Sprintf("%s: %s %s as %q [%.200s] ct=%q body(%d)=%q → %d %.300s (%s)",
		why, q.method, target, q.as, q.what, q.ct, len(q.body), b, status, body, s.e.DB.Dialect()))
}

// bodyLimit posts 2 MiB to every path on a real listener (fasthttp
// answers 413 and closes the connection, which app.Test reports as an
// error).
func (s *sweep) bodyLimit() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	go func() { _ = s.e.App.Listener(ln) }()
	defer func() { _ = s.e.App.Shutdown() }()
	big := `{"x":"` + strings.Repeat("a", 2<<20) + `"}`
	for i := range s.table {
		for _, p := range s.paths(&s.table[i]) {
			s.n++
			status, body, err := rawPost(ln.Addr().String(), "/"+Namespace+p, "application/json", big)
			if err != nil || status != http.StatusRequestEntityTooLarge || checkErrorBody(body, status) != "" {
				s.t.Errorf("2 MiB to %s: %d %.200s %v", p, status, body, err)
			}
		}
	}
}

// rawPost sends a POST and reads the answer even when the server stops
// reading the body early (it answers 413 and closes the connection).
func rawPost(addr, target, ct, body string) (int, []byte, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() {
		_, _ = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: example.test\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
			target, ct, len(body), body)
	}()
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// contentTables are the tables whose rows the API may change (app
// passwords and sessions record their use on every authenticated request).
var contentTables = []string{"post_ids", "users", "events", "venues", "organizers", "terms", "event_venues",
	"event_organizers", "event_terms", "event_translations", "venue_translations", "organizer_translations",
	"term_translations"}

// fingerprint hashes every row of the content tables.
func (s *sweep) fingerprint() string {
	h := sha256.New()
	for _, tbl := range contentTables {
		var rows []map[string]any
		if err := s.e.DB.IDB().NewRaw("SELECT * FROM "+tbl+" ORDER BY 1").Scan(context.Background(), &rows); err != nil {
			s.t.Fatalf("fingerprint %s: %v", tbl, err)
		}
		_, _ = fmt.Fprintf(h, "%s:%v\n", tbl, rows)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// writeCounter counts statements that may change content.
type writeCounter struct{ n *atomic.Int64 }

func (w writeCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (w writeCounter) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	q := strings.ToUpper(strings.TrimSpace(ev.Query))
	for _, p := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if strings.HasPrefix(q, p) && !strings.Contains(q, "APP_PASSWORDS") && !strings.Contains(q, "SESSIONS") {
			w.n.Add(1)
			return
		}
	}
}

// TestPathTextCheckedWhenOverridden: a body or query value of the path
// parameter's name wins in Args, but the path still finds the record, so
// its text must be checked too (a NUL byte reached SQLite's tokenizer and
// gave a 500).
func TestPathTextCheckedWhenOverridden(t *testing.T) {
	t.Parallel()
	eachEnv(t, func(t *testing.T, e *testEnv) {
		for _, target := range []string{
			"/cal/events/v1/venues/by-slug/%00?slug=x",
			"/cal/events/v1/organizers/by-slug/a%FFb?slug=x",
			"/cal/events/v1/venues/by-slug/" + strings.Repeat("s", 300) + "?slug=x",
		} {
			res := e.do(t, "GET", target, `{"slug":"Infinity"}`, "")
			expect(t, target[:40], res, http.StatusBadRequest, "rest_invalid_param")
		}
	})
}

// TestLongQueryWithinListLimit: a list argument at its item limit fits in
// the query string (fasthttp's default 4 KiB request line gave a
// plain-text 431).
func TestLongQueryWithinListLimit(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, modelstest.Open(t, models.SQLite))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.App.Listener(ln) }()
	t.Cleanup(func() { _ = e.App.Shutdown() })
	status := strings.TrimSuffix(strings.Repeat("publish,", MaxListItems), ",")
	res, err := http.Get("http://" + ln.Addr().String() + "/" + Namespace + "/venues?status=" + status)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != contentTypeJSON {
		t.Errorf("%d-item list in the query: %d %s", MaxListItems, res.StatusCode, res.Header.Get("Content-Type"))
	}
}
