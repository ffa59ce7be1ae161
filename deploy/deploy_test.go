package deploy_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/kalends/kalends/models/modelstest"
)

// binary is kalends built as make release builds it (CGO_ENABLED=0,
// -trimpath, no build id), for this machine's platform.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kalends-deploy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "kalends")
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version=deploy-test -X main.commit=0123abcd -X main.date=2026-12-17T00:00:00Z",
		"-o", binary, "github.com/kalends/kalends/cmd/kalends")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build kalends:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// need returns the path of a tool, or skips (fails under CI) without it.
func need(t *testing.T, tool, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		modelstest.MissingDependency(t, "%s (apt-get install %s)", tool, pkg)
	}
	return p
}

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// start runs a long-lived command, stopped when the test ends; its output
// goes to the returned buffer for failure messages.
func start(t *testing.T, cmd *exec.Cmd) *syncBuffer {
	t.Helper()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitHealthy waits until GET url answers 200.
func waitHealthy(t *testing.T, client *http.Client, u string) {
	t.Helper()
	modelstest.WaitFor(t, 60*time.Second, func() error {
		resp, err := client.Get(u)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", u, resp.Status)
		}
		return nil
	})
}

// The unit passes systemd-analyze verify without a word: unknown
// directives only warn (exit 0), so any output fails. verify checks that
// ExecStart is an executable; the test installs the release binary in a
// temporary directory and points a copy of the unit there (the one line it
// changes), rather than writing to /usr/local/bin of this machine.
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze := need(t, "systemd-analyze", "systemd")
	unit, err := os.ReadFile("kalends.service")
	if err != nil {
		t.Fatal(err)
	}
	const exec0 = "ExecStart=/usr/local/bin/kalends serve"
	if !bytes.Contains(unit, []byte("\n"+exec0+"\n")) {
		t.Fatalf("kalends.service has no line %q", exec0)
	}
	dir := t.TempDir()
	installed := filepath.Join(dir, "bin", "kalends")
	if err := os.MkdirAll(filepath.Dir(installed), 0o750); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(binary); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(installed, b, 0o750); err != nil { //nolint:gosec // G306: an executable
		t.Fatal(err)
	}
	unit = bytes.Replace(unit, []byte(exec0), []byte("ExecStart="+installed+" serve"), 1)
	path := filepath.Join(dir, "kalends.service")
	if err := os.WriteFile(path, unit, 0o600); err != nil { //nolint:gosec // G703: a path under t.TempDir()
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// The hardening the issue names is there.
	for _, d := range []string{"DynamicUser=yes", "StateDirectory=kalends", "ProtectSystem=strict",
		"NoNewPrivileges=yes", "CapabilityBoundingSet=\n", "PrivateTmp=yes", "SystemCallFilter=@system-service"} {
		if !bytes.Contains(unit, []byte("\n"+d)) {
			t.Errorf("kalends.service lacks %q", strings.TrimSpace(d))
		}
	}
}

// systemd-analyze security rates the unit's exposure from 0 (locked down)
// to 10; the unit must stay at or under securityLimit.
const securityLimit = 2.0

func TestSystemdUnitSecurityScore(t *testing.T) {
	t.Parallel()
	analyze := need(t, "systemd-analyze", "systemd")
	path, err := filepath.Abs("kalends.service")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "security", "--offline=true", "--no-pager",
		"--threshold="+strconv.Itoa(int(securityLimit*10)), path).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for kalends\.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security gave no score (%v):\n%s", err, out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("systemd-analyze security: exposure %.1f (limit %.1f)", score, securityLimit)
	if err != nil || score > securityLimit {
		t.Fatalf("exposure %.1f over %.1f (%v):\n%s", score, securityLimit, err, out)
	}
}

func TestCaddyfileValidates(t *testing.T) {
	t.Parallel()
	caddy := need(t, "caddy", "caddy")
	cmd := exec.Command(caddy, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("Valid configuration")) {
		t.Fatalf("caddy validate: %v\n%s", err, out)
	}
	// caddy warns when a Caddyfile is not in its canonical format.
	if bytes.Contains(out, []byte("not formatted")) {
		t.Errorf("run caddy fmt --overwrite deploy/Caddyfile:\n%s", out)
	}
}

// nginx -t checks the server blocks inside a minimal nginx.conf. It loads
// the certificates, so the test writes a self-signed pair and points the
// two ssl_certificate lines at it (the only lines it changes); it does not
// bind the ports.
func TestNginxConfigValidates(t *testing.T) {
	t.Parallel()
	nginx := need(t, "nginx", "nginx")
	openssl := need(t, "openssl", "openssl")
	dir := t.TempDir()
	crt, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if out, err := exec.Command(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
		"-subj", "/CN=events.example.org", "-keyout", key, "-out", crt).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	conf, err := os.ReadFile("nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(conf), "/etc/letsencrypt/live/events.example.org/fullchain.pem", crt, 1)
	s = strings.Replace(s, "/etc/letsencrypt/live/events.example.org/privkey.pem", key, 1)
	if s == string(conf) {
		t.Fatal("nginx.conf names no certificate under /etc/letsencrypt/live/events.example.org/")
	}
	site := filepath.Join(dir, "kalends.conf")
	if err := os.WriteFile(site, []byte(s), 0o600); err != nil { //nolint:gosec // G703: a path under t.TempDir()
		t.Fatal(err)
	}
	main := fmt.Sprintf("pid %s/nginx.pid;\nerror_log %s/error.log;\nevents {}\nhttp {\n\taccess_log off;\n\tinclude %s;\n}\n", dir, dir, site)
	mainPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(mainPath, []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nginx, "-t", "-q", "-p", dir, "-c", mainPath).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
}

// The release binary needs nothing around it: in an empty directory with
// an empty environment, migrate makes kalends.db there and serve answers
// /healthz. Only --addr is given (a flag, not the environment), so that the
// test does not depend on 127.0.0.1:8080 being free.
func TestReleaseBinaryRunsInAnEmptyDirectoryWithAnEmptyEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	migrate := exec.Command(binary, "migrate")
	migrate.Dir, migrate.Env = dir, []string{}
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "kalends.db")); err != nil {
		t.Fatalf("migrate made no kalends.db in its directory: %v", err)
	}
	addr := freeAddr(t)
	serve := exec.Command(binary, "serve", "--addr", addr)
	serve.Dir, serve.Env = dir, []string{}
	start(t, serve)
	waitHealthy(t, http.DefaultClient, "http://"+addr+"/healthz")

	out, err := exec.Command(binary, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "deploy-test\ncommit: 0123abcd\nbuilt: 2026-12-17T00:00:00Z\ngo: go") {
		t.Errorf("version: %v\n%s", err, out)
	}
}

// Caddy (deploy/Caddyfile, with tls internal and loopback ports instead of
// a public name) in front of Kalends started as the file's comment says.
// The client binds to 127.0.0.2, so its address differs from Caddy's
// (127.0.0.1): cookies are Secure, URLs use the https base, and the sign-in
// limits and sessions record 127.0.0.2.
func TestCaddyInFrontOfKalends(t *testing.T) {
	t.Parallel()
	caddy := need(t, "caddy", "caddy")
	dir := t.TempDir()
	db := filepath.Join(dir, "kalends.db")
	kalendsAddr := freeAddr(t)
	caddyAddr := freeAddr(t)
	_, caddyPort, _ := net.SplitHostPort(caddyAddr)
	base := "https://kalends.test:" + caddyPort

	env := []string{"KALENDS_DB=sqlite:" + db, "KALENDS_ADDR=" + kalendsAddr,
		"KALENDS_BASE_URL=" + base, "KALENDS_TRUSTED_PROXIES=127.0.0.1"}
	create := exec.Command(binary, "user", "create", "--login", "管理者", "--password", "correct horse 電池 staple",
		"--role", "administrator", "--email", "admin@example.org")
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("user create: %v\n%s", err, out)
	}
	serve := exec.Command(binary, "serve")
	serve.Env = env
	start(t, serve)

	conf, err := os.ReadFile("Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(conf)
	for old, repl := range map[string]string{
		"events.example.org {":         "https://kalends.test:" + caddyPort + " {\n\ttls internal",
		"reverse_proxy 127.0.0.1:8080": "reverse_proxy " + kalendsAddr,
		// Kalends starts with Caddy: check again soon rather than in 5 s.
		"health_interval 5s": "health_interval 100ms",
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("Caddyfile has no %q", old)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	s = fmt.Sprintf("{\n\tadmin off\n\tskip_install_trust\n\thttp_port %s\n\thttps_port %s\n\tstorage file_system %s\n}\n\n%s",
		strconv.Itoa(mustPort(t, freeAddr(t))), caddyPort, filepath.Join(dir, "caddy"), s)
	cfile := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfile, []byte(s), 0o600); err != nil { //nolint:gosec // G703: a path under t.TempDir()
		t.Fatal(err)
	}
	run := exec.Command(caddy, "run", "--config", cfile, "--adapter", "caddyfile")
	run.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	start(t, run)

	jar, _ := cookiejar.New(nil)
	client := &http.Client{
		Jar: jar,
		Transport: &http.Transport{
			// tls internal: Caddy's own CA, not trusted here.
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "kalends.test"}, //nolint:gosec // G402: a test CA
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
				return d.DialContext(ctx, network, caddyAddr)
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	waitHealthy(t, client, base+"/healthz")

	// URLs use the https base.
	body := get(t, client, base+"/cal/events/v1/events")
	if !strings.Contains(body, `"rest_url":"`+strings.ReplaceAll(base, "/", `\/`)) &&
		!strings.Contains(body, `"rest_url":"`+base) {
		t.Errorf("the event list does not use the https base %s:\n%.400s", base, body)
	}

	// A wrong password: the limits count 127.0.0.2, not Caddy's address.
	form := signInForm(t, client, base)
	form.Set("login", "管理者")
	form.Set("password", "wrong")
	if r := post(t, client, base+"/admin/login", form); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: %s", r.Status)
	}
	sqlDB, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sqlDB.Close() }()
	for ip, want := range map[string]int{"127.0.0.2": 1, "127.0.0.1": 0} {
		var n int
		if err := sqlDB.QueryRow("SELECT COUNT(*) FROM signin_attempts WHERE scope = 'form-address' AND key_hash = ?",
			hashOf(ip)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("sign-in counters of %s: %d, want %d", ip, n, want)
		}
	}

	// The right one: a Secure session cookie, and the session's address.
	form = signInForm(t, client, base)
	form.Set("login", "管理者")
	form.Set("password", "correct horse 電池 staple")
	r := post(t, client, base+"/admin/login", form)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %s", r.Status)
	}
	if loc := r.Header.Get("Location"); strings.HasPrefix(loc, "http://") {
		t.Errorf("redirect to %s, not https", loc)
	}
	var session *http.Cookie
	for _, c := range r.Cookies() {
		if strings.Contains(c.Name, "session") {
			session = c
		}
	}
	if session == nil || !session.Secure || !session.HttpOnly {
		t.Fatalf("session cookie %+v, want Secure and HttpOnly (cookies: %v)", session, r.Header.Values("Set-Cookie"))
	}
	var ip string
	if err := sqlDB.QueryRow("SELECT ip FROM sessions ORDER BY created_at DESC LIMIT 1").Scan(&ip); err != nil {
		t.Fatal(err)
	}
	if ip != "127.0.0.2" {
		t.Errorf("the session records %q, want the client's 127.0.0.2", ip)
	}
}

func mustPort(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%.300s", u, resp.Status, b)
	}
	return string(b)
}

// posted is what a form post answered (its body is read and closed).
type posted struct {
	StatusCode int
	Status     string
	Header     http.Header
	cookies    []*http.Cookie
}

func (p posted) Cookies() []*http.Cookie { return p.cookies }

func post(t *testing.T, c *http.Client, u string, form url.Values) posted {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return posted{resp.StatusCode, resp.Status, resp.Header, resp.Cookies()}
}

// signInForm loads the sign-in page (setting its CSRF cookie) and returns
// its hidden token.
func signInForm(t *testing.T, c *http.Client, base string) url.Values {
	t.Helper()
	page := get(t, c, base+"/admin/login")
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no _csrf field on the sign-in page:\n%.500s", page)
	}
	return url.Values{"_csrf": {m[1]}}
}
