// Package sandboxtest starts the sandbox venue on loopback, or on an
// in-memory network, for other packages' tests.
package sandboxtest

import (
	"context"
	"net"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
)

// Start serves a sandbox built from cfg on 127.0.0.1 and stops it when the
// test ends. It returns the sandbox's base URL.
func Start(t testing.TB, cfg sandbox.Config) (string, *sandbox.Sandbox) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening: %v", err)
	}
	return serve(t, ln, cfg)
}

// StartOn is Start on the in-memory network n: its clients dial through
// n.Transport, and a testing/synctest bubble can hold both.
func StartOn(t testing.TB, n *Network, cfg sandbox.Config) (string, *sandbox.Sandbox) {
	t.Helper()
	return serve(t, n.Listen(), cfg)
}

func serve(t testing.TB, ln net.Listener, cfg sandbox.Config) (string, *sandbox.Sandbox) {
	t.Helper()
	sb, err := sandbox.New(cfg)
	if err != nil {
		ln.Close()
		t.Fatalf("building the sandbox: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sb.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sandbox: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), sb
}
