package cluster_test

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/redistest"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestOpenAcceptsRedisURLsAndNamesTheSettingOtherwise(t *testing.T) {
	const secret = "s3cr3t-pw"
	tests := []struct {
		url   string
		ok    bool
		shown string // what String shows, when ok
	}{
		{"redis://127.0.0.1:6379/0", true, "redis://127.0.0.1:6379/0"},
		{"rediss://user:" + secret + "@cache.internal:6380/2", true, "rediss://user:xxxxx@cache.internal:6380/2"},
		{"redis://:" + secret + "@localhost", true, "redis://:xxxxx@localhost"},
		{"", false, ""},
		{"http://127.0.0.1:6379", false, ""},
		{"unix:///run/redis.sock", false, ""},
		{"redis://", false, ""},
		{"redis://user:" + secret + "@host:port/0", false, ""},
		{"redis://user:" + secret + "@host:6379/zero", false, ""},
		{"redis://user:" + secret + "@host:6379/0/1", false, ""},
		{"redis://user:" + secret + "@host:6379/0?nonsense=1", false, ""},
		{"redis://user:" + secret + "@[::1", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			c, err := cluster.Open(tt.url, cluster.Options{})
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if got := c.String(); got != tt.shown {
					t.Errorf("String() = %q, want %q", got, tt.shown)
				}
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("Open accepted it")
			}
			if !strings.Contains(err.Error(), cluster.Setting) {
				t.Errorf("error %q does not name %s", err, cluster.Setting)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestAWrongPasswordIsRefusedWithoutShowingIt(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "right-one")
	const wrong = "wr0ng-pa55"
	c := open(t, "redis://:"+wrong+"@"+srv.Addr()+"/0", fast(t))
	err := c.Ping(context.Background())
	if err == nil {
		t.Fatal("Ping with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(c.String(), wrong) {
		t.Errorf("the password shows: %q, %q", err, c.String())
	}
	good := open(t, "redis://:right-one@"+srv.Addr()+"/0", fast(t))
	if err := good.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A Redis that hangs holds no caller longer than the timeout, whatever the
// call. Bounds, not speeds: without the timeout each call would wait for
// ever.
func TestAHungRedisHoldsNoCallerLongerThanTheTimeout(t *testing.T) {
	const timeout, slack = 150 * time.Millisecond, 400 * time.Millisecond // slack: scheduling on a busy machine
	calls := []struct {
		name string
		call func(ctx context.Context, c *cluster.Client, b *cluster.Budget) error
	}{
		{"Ping", func(ctx context.Context, c *cluster.Client, _ *cluster.Budget) error { return c.Ping(ctx) }},
		{"Lease", func(ctx context.Context, c *cluster.Client, _ *cluster.Budget) error {
			_, err := c.Lease(ctx, "job", time.Second)
			return err
		}},
		{"Put", func(ctx context.Context, c *cluster.Client, _ *cluster.Budget) error {
			return c.Put(ctx, "k", []byte("v"), time.Second)
		}},
		{"Get", func(ctx context.Context, c *cluster.Client, _ *cluster.Budget) error {
			_, _, err := c.Get(ctx, "k")
			return err
		}},
		{"Budget.Take", func(ctx context.Context, _ *cluster.Client, b *cluster.Budget) error {
			_, _, err := b.Take(ctx, 1)
			return err // nil: the budget fell back to its share
		}},
	}
	hangs := []struct {
		name        string
		hang, after func(t *testing.T, srv *redistest.Server)
	}{
		{"a stopped process", func(_ *testing.T, srv *redistest.Server) { srv.Pause() },
			func(_ *testing.T, srv *redistest.Server) { srv.Resume() }},
		{"a server busy in DEBUG SLEEP", func(t *testing.T, srv *redistest.Server) { debugSleep(t, srv.Addr(), 1) }, nil},
	}
	for _, h := range hangs {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			for _, call := range calls {
				t.Run(call.name, func(t *testing.T) {
					t.Parallel() // a server each: a hang takes a second
					srv := redistest.Start(t, "--enable-debug-command", "yes")
					opt := fast(t)
					opt.Timeout = timeout
					c := open(t, srv.URL(), opt)
					b, err := cluster.NewBudget(c, "hung", venueapi.PrivateLimit(), 2)
					if err != nil {
						t.Fatal(err)
					}
					// Connect first, so the call meets the hung server, not a dial.
					// Ten servers start at once: on a busy machine the first
					// answer may take longer than the timeout.
					servertest.WaitFor(t, 10*time.Second, "Redis answered no first PING", func() bool { return c.Ping(context.Background()) == nil })
					h.hang(t, srv)
					if h.after != nil {
						defer h.after(t, srv)
					}
					start := time.Now()
					err = call.call(context.Background(), c, b)
					if took := time.Since(start); took > timeout+slack {
						t.Errorf("%s took %s with Redis hung; the timeout is %s", call.name, took, timeout)
					}
					if call.name != "Budget.Take" && err == nil {
						t.Errorf("%s succeeded with Redis hung", call.name)
					}
					if call.name == "Budget.Take" && b.State() != cluster.Degraded {
						t.Error("the budget did not turn degraded")
					}
				})
			}
		})
	}
}

// debugSleep blocks the server for seconds, from a connection of its own;
// the test's cleanup waits for the server to wake. The connection answers a
// PING first, so that the server has taken it before DEBUG SLEEP is sent:
// a command sent on another connection after debugSleep returns then reaches
// the server after DEBUG SLEEP, and meets it asleep, however late the server
// runs. A sleep for the server to read DEBUG SLEEP did not: a server not
// scheduled within it took the new connection and answered the call at
// once, and only then read DEBUG SLEEP.
func debugSleep(t *testing.T, addr string, seconds int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	t.Cleanup(func() {
		_, _ = r.ReadString('\n') // +OK when it wakes
		conn.Close()
	})
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if pong, err := r.ReadString('\n'); err != nil || pong != "+PONG\r\n" {
		t.Fatalf("PING before DEBUG SLEEP: %q, %v", pong, err)
	}
	if _, err := conn.Write([]byte("DEBUG SLEEP " + strconv.Itoa(seconds) + "\r\n")); err != nil {
		t.Fatal(err)
	}
}

func TestTheClientAndBudgetReportToPrometheus(t *testing.T) {
	c := open(t, "redis://127.0.0.1:1/0", fast(t)) // nothing listens on port 1
	b, err := cluster.NewBudget(c, "public", venueapi.PublicLimit(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Take(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c, b)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				if l.GetName() != "budget" {
					name += "," + l.GetValue()
				}
			}
			switch {
			case m.Counter != nil:
				got[name] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[name] = m.Gauge.GetValue()
			}
		}
	}
	want := map[string]float64{
		"riskchart_redis_errors_total,error":                 1,
		"riskchart_shared_budget_degraded":                   1,
		"riskchart_shared_budget_turns_total,local,refused":  1, // a fresh replica waits before spending alone
		"riskchart_shared_budget_turns_total,shared,granted": 0,
		"riskchart_shared_budget_late_turns_total":           0,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}

// Whatever follows the password, Open neither panics nor repeats the
// password in its error.
func FuzzOpenNeverShowsThePassword(f *testing.F) {
	for _, rest := range []string{"h:6379/0", "h/1?dial_timeout=1s", "[::1", "h:x/0", "h:6379/zero", "h/0/1?x=1"} {
		f.Add("pa55", rest)
	}
	f.Fuzz(func(t *testing.T, suffix, rest string) {
		// "secret" tells the password apart: no escaping of the rest writes it.
		password := "secret" + suffix
		if strings.IndexFunc(suffix, func(r rune) bool {
			return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
		}) >= 0 || strings.Contains(rest, "secret") {
			return
		}
		c, err := cluster.Open("redis://user:"+password+"@"+rest, cluster.Options{})
		if err != nil {
			if !strings.Contains(err.Error(), cluster.Setting) {
				t.Errorf("error %q does not name %s", err, cluster.Setting)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("error %q shows the password", err)
			}
			return
		}
		if strings.Contains(c.String(), password) {
			t.Errorf("String() %q shows the password", c.String())
		}
		c.Close()
	})
}
