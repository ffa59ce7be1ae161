package main

import (
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// proxyConfig sets how fiber finds the client address. The proxy check is
// always on, so X-Forwarded-* headers from a peer that is not a trusted
// proxy are ignored (c.IP() is then the peer, c.Protocol() the
// connection's); from a trusted proxy c.IP() reads X-Forwarded-For, which
// clientAddress has reduced to the one address that names the client.
func proxyConfig(cfg *fiber.Config, proxies []string) {
	cfg.EnableTrustedProxyCheck = true
	cfg.TrustedProxies = proxies
	cfg.ProxyHeader = fiber.HeaderXForwardedFor
}

// clientAddress rewrites X-Forwarded-For on requests from a trusted proxy
// to the address of the client: the right-most entry that is not itself a
// trusted proxy. Fiber would take the left-most entry, which the client
// writes itself (a proxy appends to what it receives), so a client could
// name any address and escape the per-address sign-in limit. Requests
// from other peers are left alone: fiber ignores their header.
func clientAddress(nets []netip.Prefix) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(nets) == 0 || !trusted(nets, c.Context().RemoteIP().String()) {
			return c.Next()
		}
		client := c.Context().RemoteIP().String()
		hops := strings.Split(c.Get(fiber.HeaderXForwardedFor), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop := strings.TrimSpace(hops[i])
			a, err := netip.ParseAddr(hop)
			if err != nil {
				break // not an address: nothing left of it can be believed
			}
			client = a.Unmap().String()
			if !trusted(nets, client) {
				break
			}
		}
		c.Request().Header.Set(fiber.HeaderXForwardedFor, client)
		return c.Next()
	}
}

// trusted reports whether addr is in one of nets.
func trusted(nets []netip.Prefix, addr string) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, n := range nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}
