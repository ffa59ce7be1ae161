package main

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// The client address behind trusted proxies is the right-most
// X-Forwarded-For entry that is not a trusted proxy; from any other peer
// the header is ignored. (app.Test's peer is 0.0.0.0.)
func TestClientAddressBehindTrustedProxies(t *testing.T) {
	ipApp := func(proxies ...string) *fiber.App {
		var nets []netip.Prefix
		for _, p := range proxies {
			n, err := parseProxy(p)
			if err != nil {
				t.Fatal(err)
			}
			nets = append(nets, n)
		}
		var cfg fiber.Config
		proxyConfig(&cfg, proxies)
		app := fiber.New(cfg)
		app.Use(clientAddress(nets))
		app.Get("/", func(c *fiber.Ctx) error { return c.SendString(c.IP()) })
		return app
	}
	for _, tt := range []struct {
		name    string
		proxies []string
		xff     string
		want    string
	}{
		{"no proxies: the peer", nil, "1.2.3.4", "0.0.0.0"},
		{"untrusted peer: header ignored", []string{"10.0.0.0/8"}, "1.2.3.4", "0.0.0.0"},
		{"trusted peer: its client", []string{"0.0.0.0"}, "1.2.3.4", "1.2.3.4"},
		{"a client-written entry is skipped", []string{"0.0.0.0/32", "10.0.0.0/8"}, "6.6.6.6, 5.6.7.8, 10.0.0.2", "5.6.7.8"},
		{"only proxies: the first hop", []string{"0.0.0.0", "10.0.0.0/8"}, "10.1.1.1, 10.0.0.2", "10.1.1.1"},
		{"garbage stops the walk", []string{"0.0.0.0"}, "1.2.3.4, nonsense", "0.0.0.0"},
		{"IPv6 client", []string{"0.0.0.0"}, "2001:db8::1", "2001:db8::1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("X-Forwarded-For", tt.xff)
			_, body := do(t, ipApp(tt.proxies...), req)
			if body != tt.want {
				t.Errorf("client %q, want %q", body, tt.want)
			}
		})
	}
}
