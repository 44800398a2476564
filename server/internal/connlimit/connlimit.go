// Package connlimit bounds the connections a listener keeps open per client
// address, so that one client cannot hold every file descriptor the server
// has: past the bound, its new connections are closed as soon as they are
// accepted, before a byte is read, while other clients are served.
//
// A client is an IPv4 address, or an IPv6 /64: one IPv6 host usually holds
// a whole /64, and would otherwise have 2^64 bounds. See
// docs/decisions.md#slow-clients.
package connlimit

import (
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
)

// Listener is a net.Listener that keeps at most Max connections open per
// client. Its Accept returns only connections within the bound; a
// connection's Close gives its place back.
type Listener struct {
	net.Listener
	max    int
	exempt []netip.Prefix

	mu   sync.Mutex
	open map[netip.Addr]int // open connections by client; absent when none

	refused atomic.Uint64
}

// New wraps ln so that each client keeps at most max connections open.
// max <= 0 means no bound: ln is wrapped only for the counts. Peers within
// exempt (the trusted reverse proxies, which carry every browser's
// connections) are counted but never bounded.
func New(ln net.Listener, max int, exempt ...netip.Prefix) *Listener {
	return &Listener{Listener: ln, max: max, exempt: exempt, open: map[netip.Addr]int{}}
}

// Accept waits for a connection within its client's bound, closing at once
// every one past it.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		peer, known := peerOf(c.RemoteAddr())
		if !known { // not an IP connection (a test pipe, a Unix socket): nothing to count by
			return c, nil
		}
		// A trusted proxy is named by its own address, which its /64 may
		// not hold: it is exempted, and counted, by that address.
		client, exempt := clientaddr.Holder(peer), l.exempted(peer)
		if exempt {
			client = peer
		}
		if !l.take(client, exempt) {
			l.refused.Add(1)
			c.Close()
			continue
		}
		return &conn{Conn: c, release: func() { l.give(client) }}, nil
	}
}

// Refused is how many connections have been closed for being past their
// client's bound.
func (l *Listener) Refused() uint64 { return l.refused.Load() }

// Open is how many connections are open, over all clients.
func (l *Listener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, k := range l.open {
		n += k
	}
	return n
}

func (l *Listener) take(client netip.Addr, exempt bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.open[client] >= l.max && !exempt {
		return false
	}
	l.open[client]++
	return true
}

func (l *Listener) exempted(client netip.Addr) bool {
	for _, p := range l.exempt {
		if p.Contains(client) {
			return true
		}
	}
	return false
}

func (l *Listener) give(client netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[client] <= 1 {
		delete(l.open, client) // the map holds only clients with connections
		return
	}
	l.open[client]--
}

// peerOf is a remote address's IP address, IPv4 unmapped and without an
// IPv6 zone. A link-local peer's zone (fe80::1%eth0) names the interface it
// came in on: no trusted proxy entry can name it, a prefix never contains a
// zoned address, and one client reaching the server over two interfaces is
// still one client.
func peerOf(a net.Addr) (netip.Addr, bool) {
	var ap netip.AddrPort
	switch a := a.(type) {
	case *net.TCPAddr:
		ap = a.AddrPort()
	default:
		p, err := netip.ParseAddrPort(a.String())
		if err != nil {
			return netip.Addr{}, false
		}
		ap = p
	}
	ip := ap.Addr().Unmap().WithZone("")
	return ip, ip.IsValid()
}

// conn gives its client's place back once, however often it is closed.
type conn struct {
	net.Conn
	release func()
	closed  atomic.Bool
}

func (c *conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.release()
	}
	return c.Conn.Close()
}

// ReadFrom keeps the underlying connection's fast path (sendfile for files)
// that wrapping would otherwise hide from net/http.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// CloseWrite lets net/http half-close the connection before closing it, as
// it does with a bare TCP connection, so that the client reads the answer.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
