// Package safehttp is the HTTP client of everything Kalends fetches from
// another site: the pages of a calendar being imported, the next page's
// address it names, the images it links, the redirects it answers, and
// the webhooks Kalends calls. All of that is chosen by the other site, so
// the client trusts none of it:
//
//   - the address is checked when the connection is dialled, after DNS,
//     so a name that resolves (or rebinds) to loopback, a private network,
//     link-local, CGNAT, multicast, 0.0.0.0/8, an IPv4-mapped IPv6 address,
//     a unique-local IPv6 address or any other special-purpose range of
//     IANA's registries is refused, unless Config.AllowPrivate
//     (--allow-private-addresses) says the operator wants that;
//   - redirects are followed to the same host only, at most MaxRedirects
//     (3), and never from https down to http;
//   - credentials (Config.Auth) go to their own host only, and never over
//     plain http unless Config.InsecureHTTP (--insecure-http);
//   - the environment's proxy settings are ignored;
//   - a body is read up to a cap after decoding (Fetch), and the dial, the
//     TLS handshake, the response headers and the whole exchange each
//     have a deadline.
//
// The address policy is code.dny.dev/ssrf, which GoToSocial uses too; it
// is generated from IANA's special-purpose registries.
package safehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// Defaults of Config.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRedirects   = 3
	// PageMaxBytes is the cap of a page of a remote API (Fetch's max).
	PageMaxBytes = 8 << 20
)

// Errors a request can end with (errors.Is).
var (
	// ErrAddress: the destination's address is not one the guard allows.
	ErrAddress = errors.New("safehttp: destination address refused")
	// ErrRedirect: a redirect to another host, from https to http, or
	// one too many.
	ErrRedirect = errors.New("safehttp: redirect refused")
	// ErrInsecureCredentials: credentials would go over plain http.
	ErrInsecureCredentials = errors.New("safehttp: credentials refused over plain http")
	// ErrTooLarge: the body is longer than the cap.
	ErrTooLarge = errors.New("safehttp: response body too large")
	// ErrScheme: the URL is neither http nor https.
	ErrScheme = errors.New("safehttp: only http and https are fetched")
)

// Auth is a credential for one host: HTTP basic authentication (a
// WordPress application password) sent to Host only.
type Auth struct {
	Host     string // host[:port] of the URL the credential belongs to
	User     string
	Password string
}

// Config says how a Client fetches.
type Config struct {
	// AllowPrivate turns the address guard off (--allow-private-addresses):
	// for a site on the operator's own network.
	AllowPrivate bool
	// InsecureHTTP lets credentials go over plain http (--insecure-http).
	InsecureHTTP bool
	// Auth, when set, is sent with every request to its host, and to no
	// other.
	Auth *Auth
	// ConnectTimeout bounds the dial and the TLS handshake; Timeout the
	// whole exchange, body included. Zero: the defaults.
	ConnectTimeout, Timeout time.Duration
	// MaxRedirects is how many redirects one request follows (0: 3;
	// negative: none).
	MaxRedirects int
	// UserAgent is sent with every request.
	UserAgent string
	// Resolver resolves names (nil: the system's). The guard checks what
	// it answers, whatever it is.
	Resolver *net.Resolver

	// allow are addresses let through with the guard on: the tests' own
	// servers, which can only listen on loopback here.
	allow []netip.Prefix
}

// Client fetches under the rules of the package comment. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	hc  *http.Client
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, Resolver: cfg.Resolver}
	if !cfg.AllowPrivate {
		dialer.Control = guard(cfg.allow)
	}
	transport := &http.Transport{
		Proxy:                 nil, // never the environment's proxy
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.Timeout,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	c := &Client{cfg: cfg}
	c.hc = &http.Client{Transport: transport, Timeout: cfg.Timeout, CheckRedirect: c.checkRedirect}
	return c
}

// guard is the dialer's Control function: the address dialled, after
// DNS, must be one ssrf's policy allows (any port: a site may serve on
// another) or one of allow.
func guard(allow []netip.Prefix) func(network, address string, _ syscall.RawConn) error {
	g := ssrf.New(ssrf.WithAnyPort())
	return func(network, address string, rc syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err == nil {
			for _, p := range allow {
				if p.Contains(ap.Addr()) {
					return nil
				}
			}
		}
		if err := g.Safe(network, address, rc); err != nil {
			return fmt.Errorf("%w: %s (%w)", ErrAddress, address, err)
		}
		return nil
	}
}

// checkRedirect follows a redirect to the same host (and port), not from
// https to http, at most MaxRedirects times; the credential goes along
// under the same rules as the first request (prepare).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.cfg.MaxRedirects < 0 || len(via) > c.cfg.MaxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRedirect, max(c.cfg.MaxRedirects, 0))
	}
	first := via[0].URL
	if !sameHost(first, req.URL) {
		return fmt.Errorf("%w: from %s to another host, %s", ErrRedirect, first.Host, req.URL.Host)
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: from https to %s", ErrRedirect, req.URL.Scheme)
	}
	return c.prepare(req)
}

// sameHost reports whether a and b name the same host and port (the
// scheme's default port when none is given).
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// prepare sets the headers of req the client owns: the user agent, the
// credential for its own host (refused over plain http), and no
// Accept-Encoding of the caller's, so the transport asks for gzip itself
// and decodes it, and the cap counts decoded bytes.
func (c *Client) prepare(req *http.Request) error {
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: %q", ErrScheme, req.URL.Scheme)
	}
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	req.Header.Del("Accept-Encoding")
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	if a := c.cfg.Auth; a != nil && strings.EqualFold(hostPort(a.Host, req.URL.Scheme), hostPort(req.URL.Host, req.URL.Scheme)) {
		if req.URL.Scheme != "https" && !c.cfg.InsecureHTTP {
			return fmt.Errorf("%w: %s", ErrInsecureCredentials, req.URL.Host)
		}
		req.SetBasicAuth(a.User, a.Password)
	}
	return nil
}

// hostPort is host with the scheme's default port when it has none.
func hostPort(host, scheme string) string {
	u := &url.URL{Scheme: scheme, Host: host}
	return strings.ToLower(u.Hostname()) + ":" + port(u)
}

// Do sends req under the client's rules. The caller closes the body; read
// it through Limit to cap it.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if a, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil && a.Is4In6() && !c.cfg.AllowPrivate {
		// Go dials an IPv4-mapped address as the IPv4 one; the issue's
		// rule refuses the whole ::ffff:0:0/96 range as written.
		return nil, fmt.Errorf("%w: %s is an IPv4-mapped IPv6 address", ErrAddress, req.URL.Host)
	}
	if req.URL.User != nil {
		// Credentials in the URL would bypass the per-host rule.
		return nil, fmt.Errorf("%w: credentials in the URL", ErrInsecureCredentials)
	}
	if err := c.prepare(req); err != nil {
		return nil, err
	}
	return c.hc.Do(req)
}

// Response is a fetched answer, its body read whole.
type Response struct {
	StatusCode int
	Header     http.Header
	URL        *url.URL // after redirects
	Body       []byte
}

// Fetch sends a request of method to rawURL with header and reads the
// body, decoded, up to maxBytes (ErrTooLarge past it). Any status is an
// answer: the caller decides what a 404 or a 429 means.
func (c *Client) Fetch(ctx context.Context, method, rawURL string, header http.Header, maxBytes int64) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("safehttp: %w", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := Limit(res, maxBytes)
	if err != nil {
		return nil, err
	}
	return &Response{StatusCode: res.StatusCode, Header: res.Header, URL: res.Request.URL, Body: body}, nil
}

// Limit reads res's body up to maxBytes: a declared length past it is
// refused before reading, and a body that runs past it is cut and
// refused.
func Limit(res *http.Response, maxBytes int64) ([]byte, error) {
	if res.ContentLength > maxBytes && !res.Uncompressed {
		return nil, fmt.Errorf("%w: %d bytes declared, at most %d", ErrTooLarge, res.ContentLength, maxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("safehttp: read %s: %w", res.Request.URL.Redacted(), err)
	}
	if int64(len(body)) > maxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxBytes)
	}
	return body, nil
}
