package sandboxtest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// Network is an in-memory network for one test: servers listen on it and
// clients dial it, over net.Pipe. A goroutine waiting on it, unlike one
// waiting on a loopback socket, is durably blocked, so that a
// testing/synctest bubble runs its fake clock while servers and clients
// wait. Create it inside the bubble that uses it.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*listener
	ports     int // the last port handed out
}

// NewNetwork returns an empty network.
func NewNetwork() *Network {
	return &Network{listeners: map[string]*listener{}}
}

// Listen returns a listener on 127.0.0.1 at a port of its own.
func (n *Network) Listen() net.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ports++
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000 + n.ports}
	l := &listener{n: n, addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[addr.String()] = l
	return l
}

// Transport is an HTTP transport whose connections go over n and come from
// the address ip, so that a test can be several clients.
func (n *Network) Transport(ip string) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return n.dial(ctx, ip, addr) },
	}
}

// Client is an HTTP client over n from 127.0.0.1.
func (n *Network) Client() *http.Client { return &http.Client{Transport: n.Transport("127.0.0.1")} }

func (n *Network) dial(ctx context.Context, ip, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.ports++
	from := &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000 + n.ports}
	n.mu.Unlock()
	if l == nil || from.IP == nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: from, Err: errors.New("connection refused")}
	}
	client, server := net.Pipe()
	select {
	case l.conns <- &conn{Conn: server, local: l.addr, remote: from}:
		return &conn{Conn: client, local: from, remote: l.addr}, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: l.addr, Err: errors.New("connection refused")}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type listener struct {
	n     *Network
	addr  *net.TCPAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.n.mu.Lock()
		delete(l.n.listeners, l.addr.String())
		l.n.mu.Unlock()
	})
	return nil
}

func (l *listener) Addr() net.Addr { return l.addr }

// conn is a pipe end with the addresses of a TCP connection, which servers
// read to tell clients apart.
type conn struct {
	net.Conn
	local, remote net.Addr
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }
