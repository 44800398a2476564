package cluster_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// fast are options for tests: a failure shows within a second. The
// timeout is generous, as a loaded machine can delay a loopback answer; the
// logs go to the test's output.
func fast(t testing.TB) cluster.Options {
	return cluster.Options{Timeout: time.Second, MemberTTL: 400 * time.Millisecond, ProbeEvery: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}
}

func open(t testing.TB, url string, opt cluster.Options) *cluster.Client {
	t.Helper()
	c, err := cluster.Open(url, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// replica is one replica's budget, running until the test ends, on a log
// Redis has kept (Budget.Kept): turns are granted at once.
func replica(t testing.TB, url string, opt cluster.Options, limit venueapi.Limit, replicas int) *cluster.Budget {
	t.Helper()
	b := fresh(t, url, opt, limit, replicas)
	if err := b.Kept(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

// fresh is one replica's budget, running until the test ends, on whatever
// log Redis holds.
func fresh(t testing.TB, url string, opt cluster.Options, limit venueapi.Limit, replicas int) *cluster.Budget {
	t.Helper()
	b, err := cluster.NewBudget(open(t, url, opt), "test", limit, replicas)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return b
}

// waitPresent waits until the shared log holds n replicas as present.
func waitPresent(t testing.TB, b *cluster.Budget, n int64) {
	t.Helper()
	servertest.WaitFor(t, 10*time.Second, fmt.Sprintf("%d replicas present", n), func() bool {
		got, err := b.Present(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return got >= n
	})
}

// grants records the times turns were granted for, by replica.
type grants struct {
	mu    sync.Mutex
	all   []time.Time
	local map[int][]time.Time
}

func (g *grants) add(replica int, at time.Time, local bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.all = append(g.all, at)
	if local {
		if g.local == nil {
			g.local = map[int][]time.Time{}
		}
		g.local[replica] = append(g.local[replica], at)
	}
}

// hammer has each budget's goroutines take turns until ctx ends, each
// willing to wait up to longest, and records when each granted turn is for.
func hammer(ctx context.Context, budgets []*cluster.Budget, goroutines int, longest time.Duration, g *grants) {
	var wg sync.WaitGroup
	for i, b := range budgets {
		for range goroutines {
			wg.Go(func() {
				for ctx.Err() == nil {
					r, err := b.Reserve(ctx, 1, longest)
					if err != nil {
						return
					}
					if !r.OK {
						// Refused: come back a little later, as a caller would.
						sleep(ctx, min(r.Delay, 20*time.Millisecond))
						continue
					}
					at := time.Now().Add(r.Delay)
					g.add(i, at, r.Local)
					sleep(ctx, r.Delay)
				}
			})
		}
	}
	wg.Wait()
}

// hammering runs hammer in the background until stop, which returns once
// every goroutine has; a test that ends sooner stops it too.
func hammering(t testing.TB, budgets []*cluster.Budget, goroutines int, longest time.Duration) (g *grants, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	g = &grants{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		hammer(ctx, budgets, goroutines, longest, g)
	}()
	stop = sync.OnceFunc(func() {
		cancel()
		<-done
	})
	t.Cleanup(stop)
	return g, stop
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// most is the largest number of times in any window of length per.
func most(times []time.Time, per time.Duration) (int, time.Time) {
	s := slices.Clone(times)
	slices.SortFunc(s, func(a, b time.Time) int { return a.Compare(b) })
	best, at := 0, time.Time{}
	j := 0
	for i := range s {
		for s[i].Sub(s[j]) >= per {
			j++
		}
		if n := i - j + 1; n > best {
			best, at = n, s[j]
		}
	}
	return best, at
}

// proxy forwards loopback connections to a Redis and can cut them all, as a
// network partition between one replica and Redis would, or hold back
// Redis's answers, as a slow return leg would.
type proxy struct {
	l     net.Listener
	delay atomic.Int64 // nanoseconds each read of Redis's answers is held back

	mu     sync.Mutex
	target string // the Redis new connections go to
	cut    bool
	conns  map[net.Conn]struct{}
}

func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		_ = l.Close()
		p.setCut(true)
	})
	return p
}

func (p *proxy) URL() string { return "redis://" + p.l.Addr().String() + "/0" }

func (p *proxy) serve() {
	for {
		in, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = in.Close()
			continue
		}
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go func() {
			_, _ = io.Copy(out, in)
			_ = out.Close()
		}()
		go func() {
			p.answer(in, out)
			_ = in.Close()
		}()
	}
}

// answer copies Redis's answers from out to in, each read held back by the
// proxy's delay.
func (p *proxy) answer(in, out net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			time.Sleep(time.Duration(p.delay.Load()))
			if _, err := in.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// setDelay holds back each of Redis's answers by d from now on.
func (p *proxy) setDelay(d time.Duration) { p.delay.Store(int64(d)) }

// setCut closes every connection and refuses new ones, or accepts them again.
func (p *proxy) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		p.closeAll()
	}
}

// redirect closes every connection and sends new ones to target, as when
// the Redis behind one address is replaced by another.
func (p *proxy) redirect(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target, p.cut = target, false
	p.closeAll()
}

// closeAll closes every connection; p.mu is held.
func (p *proxy) closeAll() {
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}
