package safehttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The tests run with the guard on. The only addresses it lets through are
// 127.0.0.2 and 127.0.0.3, where the tests' sites listen (a test can only
// listen on loopback here); 127.0.0.1 and every other special-purpose
// address stay refused. Names resolve through a fake DNS server.

var testAllowed = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32"), netip.MustParsePrefix("127.0.0.3/32")}

// site starts an HTTP server on ip (a loopback address) and returns it
// with its port.
func site(t *testing.T, ip string, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return s, port
}

// client is a guarded client resolving through dns, with cfg's other
// settings.
func client(dns *fakeDNS, cfg Config) *Client {
	cfg.allow = testAllowed
	if dns != nil {
		cfg.Resolver = dns.resolver()
	}
	return New(cfg)
}

func get(t *testing.T, c *Client, url string) (*Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Fetch(ctx, http.MethodGet, url, nil, PageMaxBytes)
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }

// TestRefusesSpecialAddresses: literal addresses of every range the issue
// names (and the cloud metadata address) are refused at dial time, before
// any byte is sent; a public address passes the policy.
func TestRefusesSpecialAddresses(t *testing.T) {
	t.Parallel()
	c := client(nil, Config{ConnectTimeout: time.Second})
	for _, host := range []string{
		"127.0.0.1", "127.8.9.10", "[::1]", // loopback
		"10.1.2.3", "172.16.0.1", "192.168.1.1", // private
		"169.254.169.254", "[fe80::1]", // link-local (and the metadata service)
		"100.64.0.1",             // CGNAT
		"224.0.0.1", "[ff02::1]", // multicast
		"0.0.0.0", "0.1.2.3", "[::]", // this network, unspecified
		"[::ffff:127.0.0.1]", "[::ffff:8.8.8.8]", // IPv4-mapped
		"[fc00::1]", "[fd12:3456::1]", // unique local
	} {
		_, err := get(t, c, "http://"+host+":8080/wp-json/")
		if !errors.Is(err, ErrAddress) {
			t.Errorf("%s: %v, want the address refused", host, err)
		}
	}
	g := guard(nil)
	for _, a := range []struct{ network, addr string }{{"tcp4", "93.184.216.34:443"}, {"tcp6", "[2606:2800:220:1:248:1893:25c8:1946]:443"}} {
		if err := g(a.network, a.addr, nil); err != nil {
			t.Errorf("%s: %v, want allowed", a, err)
		}
	}
	if err := g("tcp4", "127.0.0.1:80", nil); !errors.Is(err, ErrAddress) {
		t.Errorf("127.0.0.1: %v", err)
	}
}

// TestRefusesNamesThatResolveToPrivateAddresses: the check is on the
// address dialled, after DNS: a name of a private address is refused, and
// a name that rebinds to loopback between two requests is refused the
// second time.
func TestRefusesNamesThatResolveToPrivateAddresses(t *testing.T) {
	t.Parallel()
	dns := newFakeDNS(t)
	var hits atomic.Int32
	_, port := site(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Connection", "close") // every request dials again
		ok(w, r)
	}))
	dns.set("intranet.example", "10.0.0.7")
	dns.set("loopback.example", "127.0.0.1")
	dns.set("events.example", "127.0.0.2")
	c := client(dns, Config{})
	for _, name := range []string{"intranet.example", "loopback.example"} {
		if _, err := get(t, c, "http://"+name+":"+port+"/"); !errors.Is(err, ErrAddress) {
			t.Errorf("%s: %v, want the address refused", name, err)
		}
	}
	if res, err := get(t, c, "http://events.example:"+port+"/"); err != nil || string(res.Body) != "ok" {
		t.Fatalf("allowed site: %v %v", res, err)
	}
	dns.set("events.example", "127.0.0.1") // rebinds
	if _, err := get(t, c, "http://events.example:"+port+"/"); !errors.Is(err, ErrAddress) {
		t.Errorf("rebound name: %v, want the address refused", err)
	}
	if hits.Load() != 1 {
		t.Errorf("the site was reached %d times, want once", hits.Load())
	}
	// With --allow-private-addresses the operator's own network is reachable.
	open := New(Config{AllowPrivate: true, Resolver: dns.resolver()})
	if _, err := get(t, open, "http://events.example:"+port+"/"); errors.Is(err, ErrAddress) {
		t.Errorf("with AllowPrivate: %v", err)
	}
}

// TestRedirects: a redirect to the same host is followed, at most three;
// one to 127.0.0.1 or to another host is refused, as is one from https to
// http; and a redirect to the same name that now resolves to loopback is
// refused at dial time.
func TestRedirects(t *testing.T) {
	t.Parallel()
	dns := newFakeDNS(t)
	var port string
	var otherHits atomic.Int32
	_, otherPort := site(t, "127.0.0.3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		ok(w, r)
	}))
	_, port = site(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		var n int
		switch _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); {
		case err == nil && n > 0:
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
		case r.URL.Path == "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.1:"+port+"/", http.StatusFound)
		case r.URL.Path == "/to-other":
			http.Redirect(w, r, "http://127.0.0.3:"+otherPort+"/", http.StatusMovedPermanently)
		case r.URL.Path == "/to-rebound":
			dns.set("events.example", "127.0.0.1")
			http.Redirect(w, r, "/", http.StatusFound)
		default:
			ok(w, r)
		}
	}))
	dns.set("events.example", "127.0.0.2")
	c := client(dns, Config{})
	base := "http://events.example:" + port
	if res, err := get(t, c, base+"/hop/3"); err != nil || res.URL.Path != "/hop/0" {
		t.Errorf("three redirects: %v %v", res, err)
	}
	if _, err := get(t, c, base+"/hop/4"); !errors.Is(err, ErrRedirect) {
		t.Errorf("four redirects: %v, want refused", err)
	}
	if _, err := get(t, c, base+"/to-loopback"); !errors.Is(err, ErrRedirect) {
		t.Errorf("redirect to 127.0.0.1: %v, want refused", err)
	}
	if _, err := get(t, c, base+"/to-other"); !errors.Is(err, ErrRedirect) || otherHits.Load() != 0 {
		t.Errorf("redirect to another host: %v (reached %d times), want refused", err, otherHits.Load())
	}
	if _, err := get(t, c, base+"/to-rebound"); !errors.Is(err, ErrAddress) {
		t.Errorf("redirect to a name rebound to loopback: %v, want the address refused", err)
	}

	// From https down to http on the same host and port.
	var tlsPort string
	tls := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com:"+tlsPort+"/", http.StatusFound)
	}))
	tls.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused client hangs up
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	tls.Listener = ln
	_, tlsPort, _ = net.SplitHostPort(ln.Addr().String())
	tls.StartTLS()
	t.Cleanup(tls.Close)
	dns.set("example.com", "127.0.0.2") // a name the test certificate holds
	sc := client(dns, Config{})
	sc.hc.Transport.(*http.Transport).TLSClientConfig = tls.Client().Transport.(*http.Transport).TLSClientConfig
	if res, err := get(t, sc, "https://example.com:"+tlsPort+"/ok"); err == nil || !errors.Is(err, ErrRedirect) {
		t.Errorf("https to http: %v %v, want refused", res, err)
	}
}

// TestCredentials: the credential goes to its own host only, never over
// plain http unless InsecureHTTP, not to another host the site links, not
// from the URL, and a caller's own Authorization header is dropped.
func TestCredentials(t *testing.T) {
	t.Parallel()
	dns := newFakeDNS(t)
	seen := func(got *atomic.Value) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Header.Get("Authorization"))
			ok(w, r)
		}
	}
	var onSite, onCDN atomic.Value
	_, port := site(t, "127.0.0.2", seen(&onSite))
	_, cdnPort := site(t, "127.0.0.3", seen(&onCDN))
	dns.set("events.example", "127.0.0.2")
	dns.set("cdn.example", "127.0.0.3")
	auth := &Auth{Host: "events.example:" + port, User: "editor", Password: "abcd efgh ijkl"}

	strict := client(dns, Config{Auth: auth})
	if _, err := get(t, strict, "http://events.example:"+port+"/wp-json/"); !errors.Is(err, ErrInsecureCredentials) {
		t.Errorf("credential over plain http: %v, want refused", err)
	}
	if onSite.Load() != nil {
		t.Errorf("the site was reached with %q", onSite.Load())
	}

	c := client(dns, Config{Auth: auth, InsecureHTTP: true})
	if _, err := get(t, c, "http://EVENTS.example:"+port+"/wp-json/"); err != nil {
		t.Fatal(err)
	}
	if got, _ := onSite.Load().(string); !strings.HasPrefix(got, "Basic ") {
		t.Errorf("own host got Authorization %q", got)
	}
	ctx := context.Background()
	if _, err := c.Fetch(ctx, http.MethodGet, "http://cdn.example:"+cdnPort+"/image.jpg",
		http.Header{"Authorization": {"Bearer leaked"}, "Cookie": {"wordpress_logged_in=x"}}, PageMaxBytes); err != nil {
		t.Fatal(err)
	}
	if got, _ := onCDN.Load().(string); got != "" {
		t.Errorf("another host got Authorization %q", got)
	}
	if _, err := get(t, c, "http://editor:pw@cdn.example:"+cdnPort+"/"); !errors.Is(err, ErrInsecureCredentials) {
		t.Errorf("credentials in the URL: %v, want refused", err)
	}
	for _, u := range []string{"file:///etc/passwd", "ftp://events.example/"} {
		if _, err := get(t, c, u); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: %v, want refused", u, err)
		}
	}
}

// TestIgnoresTheEnvironmentsProxy: with HTTP_PROXY set, requests still go
// straight to the site (a proxy would forward to anywhere, past the guard).
func TestIgnoresTheEnvironmentsProxy(t *testing.T) {
	dns := newFakeDNS(t)
	var proxied atomic.Int32
	_, proxyPort := site(t, "127.0.0.3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		ok(w, r)
	}))
	_, port := site(t, "127.0.0.2", http.HandlerFunc(ok))
	dns.set("events.example", "127.0.0.2")
	t.Setenv("HTTP_PROXY", "http://127.0.0.3:"+proxyPort)
	t.Setenv("HTTPS_PROXY", "http://127.0.0.3:"+proxyPort)
	t.Setenv("NO_PROXY", "")
	if _, err := get(t, client(dns, Config{}), "http://events.example:"+port+"/"); err != nil {
		t.Fatal(err)
	}
	if proxied.Load() != 0 {
		t.Errorf("the request went through the environment's proxy")
	}
}

// TestCapsDecodedBodies: a body past the cap is refused, whether its
// length is declared, chunked, or gzip-compressed small on the wire; a
// body of exactly the cap is read.
func TestCapsDecodedBodies(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	big := bytes.Repeat([]byte("祭"), limit/3+1) // past 1 MiB
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(big)
	_ = zw.Close()
	_, port := site(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			_, _ = w.Write(big)
		case "/chunked":
			for i := 0; i < len(big); i += 4096 {
				_, _ = w.Write(big[i:min(i+4096, len(big))])
				w.(http.Flusher).Flush()
			}
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(zipped.Bytes())
		case "/exact":
			_, _ = w.Write(big[:limit])
		}
	}))
	c := client(nil, Config{})
	ctx := context.Background()
	if zipped.Len() > limit/10 {
		t.Fatalf("the compressed body is %d bytes, meant to be small", zipped.Len())
	}
	for _, p := range []string{"/declared", "/chunked", "/gzip"} {
		if _, err := c.Fetch(ctx, http.MethodGet, "http://127.0.0.2:"+port+p, nil, limit); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want too large", p, err)
		}
	}
	res, err := c.Fetch(ctx, http.MethodGet, "http://127.0.0.2:"+port+"/exact", nil, limit)
	if err != nil || len(res.Body) != limit {
		t.Errorf("exactly the cap: %v", err)
	}
}

// TestTimeout: a site that never answers is given up after Timeout.
func TestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	_, port := site(t, "127.0.0.2", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release) })
	c := client(nil, Config{Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := get(t, c, "http://127.0.0.2:"+port+"/")
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("a silent site: %v after %v, want a timeout", err, time.Since(start))
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("error %v is not a timeout", err)
	}
}
