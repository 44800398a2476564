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
