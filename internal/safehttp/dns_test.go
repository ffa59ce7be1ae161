package safehttp

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// fakeDNS is a DNS server on loopback UDP answering A and AAAA queries from
// a table the test changes as it goes (a name can rebind between two
// lookups). Names not in the table get NXDOMAIN.
type fakeDNS struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr // by lower-case name without the final dot
	conn    net.PacketConn
}

// newFakeDNS starts the server; it stops with the test.
func newFakeDNS(t *testing.T) *fakeDNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{answers: map[string][]netip.Addr{}, conn: conn}
	t.Cleanup(func() { _ = conn.Close() })
	go d.serve()
	return d
}

// set makes name resolve to addrs from the next lookup on.
func (d *fakeDNS) set(name string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var as []netip.Addr
	for _, a := range addrs {
		as = append(as, netip.MustParseAddr(a))
	}
	d.answers[strings.ToLower(name)] = as
}

// resolver is a Go resolver that asks only this server.
func (d *fakeDNS) resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", addr)
	}}
}

func (d *fakeDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if out, ok := d.answer(buf[:n]); ok {
			_, _ = d.conn.WriteTo(out, from)
		}
	}
}

func (d *fakeDNS) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	d.mu.Lock()
	addrs, known := d.answers[name]
	d.mu.Unlock()
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, false
	}
	if err := b.Question(q); err != nil {
		return nil, false
	}
	if err := b.StartAnswers(); err != nil {
		return nil, false
	}
	rrh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
	for _, a := range addrs {
		switch {
		case q.Type == dnsmessage.TypeA && a.Is4():
			if err := b.AResource(rrh, dnsmessage.AResource{A: a.As4()}); err != nil {
				return nil, false
			}
		case q.Type == dnsmessage.TypeAAAA && a.Is6():
			if err := b.AAAAResource(rrh, dnsmessage.AAAAResource{AAAA: a.As16()}); err != nil {
				return nil, false
			}
		}
	}
	out, err := b.Finish()
	return out, err == nil
}
