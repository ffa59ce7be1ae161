package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// apiCall sends one request to a running server and returns the status,
// the Retry-After header and the error code of the body, if any.
func apiCall(t *testing.T, method, url, auth, from, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = res.Body.Close() }()
	b, _ := io.ReadAll(res.Body)
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(b, &e)
	return res.StatusCode, res.Header.Get("Retry-After"), e.Code
}

// TestWrongApplicationPasswordsAreLimitedAcrossInstances: 1,000 wrong
// application passwords from one address, sent in turn to two instances
// sharing one database, get 401 until the address's limit (20; application
// passwords count per address only) and 429 with Retry-After after, within
// a minute; the right password of the targeted user, and of another, from
// another address works at once. The addresses come from X-Forwarded-For,
// trusted from loopback as --trusted-proxies says. On SQLite and MariaDB.
func TestWrongApplicationPasswordsAreLimitedAcrossInstances(t *testing.T) {
	t.Parallel()
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			db := modelstest.NewDSN(t, d)
			args := []string{"--trusted-proxies", "127.0.0.1", "--admin-login", "boss", "--admin-password", "boss-password-1", "--publish-interval", "0"}
			a := startServer(t, db, args...)
			b := startServer(t, db, args...)
			if r := kalends(t, "user", "create", "--db", db, "--login", "ann", "--password", "ann-account-pw", "--role", "editor"); r.code != 0 {
				t.Fatal(r.stderr)
			}
			r := kalends(t, "app-password", "create", "--db", db, "--login", "ann")
			if r.code != 0 {
				t.Fatal(r.stderr)
			}
			ann := "Basic " + basic("ann", strings.TrimSpace(r.stdout))
			const attacker = "203.0.113.7"
			start := time.Now()
			counts := map[int]int{}
			for i := range 1000 {
				login := "boss"
				if i >= 10 {
					login = "user-" + strconv.Itoa(i)
				}
				srv := a
				if i%2 == 1 {
					srv = b
				}
				status, retry, code := apiCall(t, http.MethodGet, srv.url+"/cal/events/v1/events?status=draft", "Basic "+basic(login, "wrong-password-"+strconv.Itoa(i)), attacker, "")
				counts[status]++
				want := http.StatusUnauthorized
				// 20 failures from the address, whatever the logins.
				if i >= 20 {
					want = http.StatusTooManyRequests
				}
				if status != want {
					t.Fatalf("attempt %d (%s): %d %s, want %d", i+1, login, status, code, want)
				}
				// Retry-After: what is left of the address's window.
				if n, _ := strconv.Atoi(retry); status == http.StatusTooManyRequests && (n < 1 || n > 900 || code != "rest_too_many_requests") {
					t.Fatalf("attempt %d: Retry-After %q, code %q", i+1, retry, code)
				}
			}
			if took := time.Since(start); took > time.Minute {
				t.Errorf("1,000 attempts took %v, more than a minute", took)
			}
			t.Logf("1,000 wrong passwords in %v: %v", time.Since(start).Round(time.Millisecond), counts)
			// Another user, and the targeted one, from another address: at
			// once, on both instances.
			r = kalends(t, "app-password", "create", "--db", db, "--login", "boss")
			if r.code != 0 {
				t.Fatal(r.stderr)
			}
			boss := "Basic " + basic("boss", strings.TrimSpace(r.stdout))
			for _, srv := range []*server{a, b} {
				for who, auth := range map[string]string{"ann": ann, "boss": boss} {
					if status, _, code := apiCall(t, http.MethodGet, srv.url+"/cal/events/v1/events?status=draft", auth, "198.51.100.9", ""); status != http.StatusOK {
						t.Errorf("%s from another address: %d %s", who, status, code)
					}
				}
			}
			// The attacker's address stays refused, even with a right password.
			if status, _, _ := apiCall(t, http.MethodGet, a.url+"/cal/events/v1/events", ann, attacker, ""); status != http.StatusTooManyRequests {
				t.Errorf("a right password from the blocked address: %d, want 429", status)
			}
		})
	}
}

// TestWritesPerUserAreLimited: with --write-limit 5, a user's sixth write
// within a minute gets 429 with a Retry-After of at most a minute; reads
// still work, and so do another user's writes.
func TestWritesPerUserAreLimited(t *testing.T) {
	t.Parallel()
	db := modelstest.NewDSN(t, models.SQLite)
	s := startServer(t, db, "--write-limit", "5", "--publish-interval", "0")
	auth := map[string]string{}
	for _, login := range []string{"ann", "bob"} {
		if r := kalends(t, "user", "create", "--db", db, "--login", login, "--password", login+"-account-pw", "--role", "editor"); r.code != 0 {
			t.Fatal(r.stderr)
		}
		r := kalends(t, "app-password", "create", "--db", db, "--login", login)
		if r.code != 0 {
			t.Fatal(r.stderr)
		}
		auth[login] = "Basic " + basic(login, strings.TrimSpace(r.stdout))
	}
	venue := func(who string, i int) (int, string, string) {
		return apiCall(t, http.MethodPost, s.url+"/cal/events/v1/venues", auth[who], "", fmt.Sprintf(`{"venue":"Hall %s %d"}`, who, i))
	}
	for i := range 5 {
		if status, _, code := venue("ann", i); status != http.StatusCreated {
			t.Fatalf("write %d: %d %s", i+1, status, code)
		}
	}
	status, retry, code := venue("ann", 5)
	n, _ := strconv.Atoi(retry)
	if status != http.StatusTooManyRequests || code != "rest_too_many_requests" || n < 1 || n > 60 {
		t.Errorf("sixth write: %d %s, Retry-After %q", status, code, retry)
	}
	if status, _, _ := apiCall(t, http.MethodGet, s.url+"/cal/events/v1/venues", auth["ann"], "", ""); status != http.StatusOK {
		t.Errorf("a read after the limit: %d", status)
	}
	if status, _, code := venue("bob", 0); status != http.StatusCreated {
		t.Errorf("another user's write: %d %s", status, code)
	}
}

// TestSlowClientsAreCutOff: a client that trickles its request headers,
// or its body, a byte at a time is disconnected once --read-timeout has
// passed, while other requests are served meanwhile.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, modelstest.NewDSN(t, models.SQLite), "--read-timeout", "500ms", "--publish-interval", "0")
	for _, tc := range []struct{ name, head, trickle string }{
		{"headers", "GET /cal/events/v1/events HTTP/1.1\r\nHost: x\r\n", "X-Slow: " + strings.Repeat("a", 200)},
		{"body", "POST /cal/events/v1/venues HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n", `{"venue":"` + strings.Repeat("a", 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close() }()
			if _, err := conn.Write([]byte(tc.head)); err != nil {
				t.Fatal(err)
			}
			closed := make(chan time.Duration, 1)
			start := time.Now()
			go func() {
				_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, _ = io.Copy(io.Discard, bufio.NewReader(conn)) // returns when the server closes
				closed <- time.Since(start)
			}()
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case took := <-closed:
					if took > 3*time.Second {
						t.Errorf("cut off after %v, want about the 500ms read timeout", took)
					}
					return
				case <-tick.C:
					if i < len(tc.trickle) {
						_, _ = conn.Write([]byte{tc.trickle[i]}) // fails once the server is gone
					}
					if i == 2 { // meanwhile, others are served
						if res, _ := get(t, s.url+"/healthz"); res.StatusCode != http.StatusOK {
							t.Errorf("healthz during the slow request: %d", res.StatusCode)
						}
					}
				}
			}
		})
	}
}
