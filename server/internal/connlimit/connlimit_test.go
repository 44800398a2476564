package connlimit

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/clientaddr"
)

// server accepts on a bounded listener, greets each connection it accepts
// with one byte, and closes it when the client does, reporting that on
// closed.
type server struct {
	ln     *Listener
	closed chan struct{}
}

func startServer(t *testing.T, max int, exempt ...netip.Prefix) *server {
	t.Helper()
	return startServerOn(t, "127.0.0.1:0", max, exempt...)
}

// startServerOn is startServer listening on addr.
func startServerOn(t *testing.T, addr string, max int, exempt ...netip.Prefix) *server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, ln, max, exempt...)
}

// serve is startServer accepting on ln.
func serve(t *testing.T, ln net.Listener, max int, exempt ...netip.Prefix) *server {
	t.Helper()
	s := &server{ln: New(ln, max, exempt...), closed: make(chan struct{}, 100)}
	t.Cleanup(func() { s.ln.Close() })
	go func() {
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			go func() {
				c.Write([]byte("k"))
				io.Copy(io.Discard, c) // until the client closes
				c.Close()
				c.Close() // a second Close gives nothing back twice
				s.closed <- struct{}{}
			}()
		}
	}()
	return s
}

// dial connects from the loopback address from and reports whether the
// server kept the connection (it greets it) or closed it at once.
func (s *server) dial(t *testing.T, from string) (net.Conn, bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a guard against a hang, not a measure
	var b [1]byte
	_, err = c.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server neither greeted nor closed the connection")
	}
	return c, err == nil && b[0] == 'k'
}

func TestAClientPastItsBoundHasItsNewConnectionsClosedAtOnceWhileOthersAreServed(t *testing.T) {
	s := startServer(t, 3)
	var held []net.Conn
	for i, want := range []bool{true, true, true, false, false} {
		c, kept := s.dial(t, "127.0.0.1")
		if kept != want {
			t.Fatalf("connection %d from 127.0.0.1: kept %v, want %v", i+1, kept, want)
		}
		if kept {
			held = append(held, c)
		}
	}
	if _, kept := s.dial(t, "127.0.0.2"); !kept {
		t.Fatal("another client's connection was closed")
	}
	if s.ln.Refused() != 2 || s.ln.Open() != 4 {
		t.Fatalf("refused %d open %d, want 2 and 4", s.ln.Refused(), s.ln.Open())
	}
	held[0].Close()
	<-s.closed // the server closed its side: the place is free
	if _, kept := s.dial(t, "127.0.0.1"); !kept {
		t.Fatal("a connection after one closed was refused")
	}
}

func TestATrustedProxyCarriesEveryBrowsersConnectionsUnbounded(t *testing.T) {
	s := startServer(t, 2, netip.MustParsePrefix("127.0.0.2/32"))
	for i := range 10 {
		if _, kept := s.dial(t, "127.0.0.2"); !kept {
			t.Fatalf("the proxy's connection %d was closed", i+1)
		}
	}
	for i := range 3 {
		if _, kept := s.dial(t, "127.0.0.3"); kept != (i < 2) {
			t.Fatalf("another client's connection %d: kept %v, bound 2", i+1, kept)
		}
	}
	if s.ln.Open() != 12 || s.ln.Refused() != 1 {
		t.Fatalf("open %d refused %d, want 12 and 1", s.ln.Open(), s.ln.Refused())
	}
}

func TestNoBoundKeepsEveryConnection(t *testing.T) {
	s := startServer(t, 0)
	for i := range 20 {
		if _, kept := s.dial(t, "127.0.0.1"); !kept {
			t.Fatalf("connection %d was closed", i+1)
		}
	}
	if s.ln.Refused() != 0 || s.ln.Open() != 20 {
		t.Fatalf("refused %d open %d, want 0 and 20", s.ln.Refused(), s.ln.Open())
	}
}

// clientOf is the client a remote address counts against, as Accept counts
// a peer that is no trusted proxy.
func clientOf(a net.Addr) (netip.Addr, bool) {
	peer, ok := peerOf(a)
	if !ok {
		return netip.Addr{}, false
	}
	return clientaddr.Holder(peer), true
}

func TestAClientIsAnIPv4AddressOrAnIPv6Slash64(t *testing.T) {
	tests := []struct {
		name string
		addr net.Addr
		want string // "" for no client
	}{
		{"IPv4", &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 5000}, "192.0.2.7"},
		{"IPv4 mapped into IPv6", &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 5000}, "192.0.2.7"},
		{"IPv6, to its /64", &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), Port: 5000}, "2001:db8:1:2::"},
		{"IPv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 5000}, "::"},
		{"an address of another network, by its text", &net.UDPAddr{IP: net.ParseIP("192.0.2.8"), Port: 1}, "192.0.2.8"},
		{"a pipe", pipeAddr{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := clientOf(tt.addr)
			if tt.want == "" {
				if ok {
					t.Fatalf("client %s, want none", got)
				}
				return
			}
			if !ok || got != netip.MustParseAddr(tt.want) {
				t.Fatalf("client %s (%v), want %s", got, ok, tt.want)
			}
		})
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

func TestATrustedIPv6ProxyNamedByItsAddressIsUnbounded(t *testing.T) {
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback:", err)
	} else {
		ln.Close()
	}
	// As RISKCHART_TRUSTED_PROXIES=::1 reads: one address, a /128.
	proxy := netip.PrefixFrom(netip.MustParseAddr("::1"), 128)
	s := startServerOn(t, "[::1]:0", 2, proxy)
	for i := range 5 {
		if _, kept := s.dial(t, "::1"); !kept {
			t.Fatalf("the proxy's connection %d was closed (bound 2): refused %d", i+1, s.ln.Refused())
		}
	}
}

// peerListener is a loopback listener whose connections report peers as
// their remote addresses, in turn: no loopback connection comes from a
// zoned link-local address (fe80::1%eth0), which is how a proxy on the
// same link reaches the server. Only the server's accepting goroutine
// calls Accept.
type peerListener struct {
	net.Listener
	peers []net.Addr
	next  int
}

func (l *peerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	peer := l.peers[l.next%len(l.peers)]
	l.next++
	return peerConn{Conn: c, peer: peer}, nil
}

// peerConn is a connection whose remote address is peer.
type peerConn struct {
	net.Conn
	peer net.Addr
}

func (c peerConn) RemoteAddr() net.Addr { return c.peer }

// clientsHeld is how many clients hold connections on l.
func clientsHeld(l *Listener) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open)
}

func TestALinkLocalPeerIsJudgedWithoutItsZone(t *testing.T) {
	linkLocal := func(ip, zone string) net.Addr {
		return &net.TCPAddr{IP: net.ParseIP(ip), Port: 4000, Zone: zone}
	}
	tests := []struct {
		name    string
		trusted string // as RISKCHART_TRUSTED_PROXIES reads
		peers   []net.Addr
		kept    []bool // connection by connection, bound 2
		clients int    // clients holding the kept connections
	}{
		{
			name:    "a trusted proxy named by its address is never refused",
			trusted: "fe80::1",
			peers:   []net.Addr{linkLocal("fe80::1", "eth0")},
			kept:    []bool{true, true, true, true, true},
			clients: 1,
		},
		{
			name:    "a trusted proxy within a trusted prefix is never refused",
			trusted: "fe80::/64",
			peers:   []net.Addr{linkLocal("fe80::1", "eth0")},
			kept:    []bool{true, true, true, true, true},
			clients: 1,
		},
		{
			name:    "a trusted proxy reaching over two interfaces is one client, never refused",
			trusted: "fe80::1",
			peers:   []net.Addr{linkLocal("fe80::1", "eth0"), linkLocal("fe80::1", "eth1")},
			kept:    []bool{true, true, true, true, true, true},
			clients: 1,
		},
		{
			name:    "another link-local peer is bounded",
			trusted: "fe80::1",
			peers:   []net.Addr{linkLocal("fe80::2", "eth0")},
			kept:    []bool{true, true, false, false},
			clients: 1,
		},
		{
			name:    "another link-local peer over two interfaces is one client, bounded",
			trusted: "fe80::1",
			peers:   []net.Addr{linkLocal("fe80::2", "eth0"), linkLocal("fe80::2", "eth1")},
			kept:    []bool{true, true, false, false},
			clients: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trusted, err := clientaddr.ParsePrefixes(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := serve(t, &peerListener{Listener: ln, peers: tt.peers}, 2, trusted...)
			for i, want := range tt.kept {
				if _, kept := s.dial(t, "127.0.0.1"); kept != want {
					t.Fatalf("connection %d from %s: kept %v, want %v", i+1, tt.peers[i%len(tt.peers)], kept, want)
				}
			}
			if got := clientsHeld(s.ln); got != tt.clients {
				t.Fatalf("%d clients hold connections, want %d", got, tt.clients)
			}
		})
	}
}
