package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kalends/kalends/models"
	"github.com/kalends/kalends/models/modelstest"
)

// cutProxy forwards TCP connections to a database server until it is cut:
// then it closes every connection and refuses new ones, as HAProxy does
// for a Galera node that died (on-marked-down shutdown-sessions) before a
// backup takes over; mend listens again on the same address.
type cutProxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	p := &cutProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	p.listen("127.0.0.1:0")
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *cutProxy) forward(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
	_, _ = io.Copy(c, s)
	_ = c.Close()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

func (p *cutProxy) mend() { p.listen(p.addr) }

// TestADatabaseFailoverAnswers503: while the database is cut off (a
// failover under way), reads, API writes, the admin's form posts and the
// public pages answer 503 with Retry-After, never 500, and the write sent
// then is not applied, not even in part; once the database is back, the
// same app works on new connections.
func TestADatabaseFailoverAnswers503(t *testing.T) {
	dsn := modelstest.NewDSN(t, models.MySQL)
	ctx := context.Background()
	direct, err := models.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Close() })
	if _, err := direct.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	auth := signinUser(t, direct, "failover")
	u, _ := url.Parse(dsn)
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.addr
	db, err := models.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	old := models.FailoverBudget
	models.FailoverBudget = 300 * time.Millisecond
	t.Cleanup(func() { models.FailoverBudget = old })
	app := signinApp(t, db, models.Limits{})
	create := func(title string) *http.Request {
		body, _ := json.Marshal(map[string]any{"title": title, "status": "publish",
			"start_date": "2027-05-01 19:00:00", "end_date": "2027-05-01 21:00:00"})
		req := httptest.NewRequest(http.MethodPost, "/cal/events/v1/events", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth)
		return req
	}
	if res, body := do(t, app, create("京都の夏祭り")); res.StatusCode != http.StatusCreated {
		t.Fatalf("create before the cut: %d %s", res.StatusCode, body)
	}

	proxy.cut()
	form := url.Values{"login": {"failover"}, "password": {"failover-account-pw"}, "_csrf": {"tok"}}
	signin := httptest.NewRequest(http.MethodPost, "/admin/login", strings.NewReader(form.Encode()))
	signin.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	signin.AddCookie(&http.Cookie{Name: "kalends_login_csrf", Value: "tok"})
	for _, c := range []struct {
		name string
		req  *http.Request
		ct   string
	}{
		{"API read", httptest.NewRequest(http.MethodGet, "/cal/events/v1/events?search=%E7%A5%AD", nil), "application/json"},
		{"API write", create("부산 불꽃 축제"), "application/json"},
		{"admin form post", signin, "text/html"},
		{"public page", httptest.NewRequest(http.MethodGet, "/events", nil), "text/html"},
	} {
		res, body := do(t, app, c.req)
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
			!strings.HasPrefix(res.Header.Get("Content-Type"), c.ct) {
			t.Errorf("%s with the database cut off: %d, Retry-After %q, %s; want 503 with Retry-After\n%.300s",
				c.name, res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"), body)
		}
	}

	proxy.mend()
	err = modelstest.Await(10*time.Second, func() error {
		res, body := do(t, app, httptest.NewRequest(http.MethodGet, "/cal/events/v1/events?status=publish", nil))
		if res.StatusCode != http.StatusOK {
			return errors.New(res.Status + " " + body)
		}
		var list struct {
			Events []struct {
				Title string `json:"title"`
			} `json:"events"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			return err
		}
		if len(list.Events) != 1 || list.Events[0].Title != "京都の夏祭り" {
			t.Fatalf("events after the failover: %+v, want only the one acknowledged\n%.500s", list.Events, body)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the app did not come back after the database did: %v", err)
	}
	if res, body := do(t, app, create("Fête de la Musique à Montréal")); res.StatusCode != http.StatusCreated {
		t.Errorf("create after the failover: %d %s", res.StatusCode, body)
	}
}
