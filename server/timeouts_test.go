package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// runServer runs the whole server in-process with env on a free loopback
// port, and returns its address and a stop that shuts it down and returns
// run's result.
func runServer(t *testing.T, env map[string]string) (addr string, stop func() error) {
	t.Helper()
	vars := map[string]string{"RISKCHART_ADDR": "127.0.0.1:0", "RISKCHART_ROOT": ".."}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"riskchart"}, func(k string) string { return vars[k] }, pw, io.Discard)
		pw.Close()
	}()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { stop() })
	base := servertest.ServingURL(t, pr, nil)
	servertest.WaitHealthy(t, base+"/healthz")
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	return strings.TrimPrefix(base, "http://"), stop
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to count descriptors: %v", err)
	}
	return len(fds)
}

// openFilesSettled counts this process's open files until there are at most
// want, for up to two seconds: the server's side of a connection may close a
// moment after the client's (within half a second with Go 1.27), and a count
// taken at once would still see it. A descriptor the server keeps is counted
// all the same once the two seconds are out.
func openFilesSettled(t *testing.T, want int) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		got := openFiles(t)
		if got <= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// slowBodies opens n connections to addr, each sending a POST's headers and
// one byte of the 1000 its Content-Length promises, and then nothing.
func slowBodies(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	req := "POST " + venueapi.PathPositionLimit + " HTTP/1.1\r\nHost: " + addr +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
	}
	return conns
}

// awaitClosed reads every connection until the server ends it, closes it,
// and returns when the last one ended, with what each received; it fails t
// for any still open after guard, which only keeps a broken server from
// hanging the test.
func awaitClosed(t *testing.T, conns []net.Conn, guard time.Duration) (last time.Time, answers []string) {
	t.Helper()
	var mu sync.Mutex
	var open int
	var wg sync.WaitGroup
	answers = make([]string, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(guard))
			b, err := io.ReadAll(c)
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				open++
				return
			}
			answers[i] = string(b)
			if now.After(last) {
				last = now
			}
		}()
	}
	wg.Wait()
	if open > 0 {
		t.Fatalf("%d of %d connections still open after %s", open, len(conns), guard)
	}
	return last, answers
}

func TestClientsThatStopSendingAreCutOffAtTheReadDeadlineAndDoNotHoldShutdown(t *testing.T) {
	const readTimeout = time.Second
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	addr, stop := runServer(t, map[string]string{
		"RISKCHART_READ_TIMEOUT":         readTimeout.String(),
		"RISKCHART_MAX_CONNS_PER_CLIENT": "0",   // one address opens them all
		"RISKCHART_SHUTDOWN_TIMEOUT":     "30s", // waiting out the grace would show
	})
	baseline := openFiles(t)
	// Each connection is a descriptor here and one in the server, in this process.
	n := min(1500, (int(lim.Cur)-baseline-100)/2)
	t.Logf("open files: limit %d, baseline %d; %d connections at a time", lim.Cur, baseline, n)

	// Connections that stop sending mid-body end at the read deadline.
	conns := slowBodies(t, addr, n)
	started := time.Now() // the last request's first byte is sent
	t.Logf("%d open files with the connections open (the server may still be accepting some)", openFiles(t))
	last, answers := awaitClosed(t, conns, 30*time.Second)
	// Those within the client's burst reached the handler: a body that stops
	// coming is a 400, never read as fewer parameters. The others were
	// refused by the client's rate, and waited for their bodies all the same.
	statuses := map[string]int{}
	for _, a := range answers {
		line, _, _ := strings.Cut(a, "\r\n")
		statuses[line]++
		if strings.HasPrefix(a, "HTTP/1.1 400 ") && !strings.Contains(a, "must arrive whole") {
			t.Errorf("a 400 that does not say why:\n%s", a)
		}
	}
	t.Logf("answers: %v", statuses)
	if statuses["HTTP/1.1 400 Bad Request"] == 0 || statuses["HTTP/1.1 400 Bad Request"]+statuses["HTTP/1.1 429 Too Many Requests"] != n {
		t.Errorf("answers %v, want 400 for the bodies cut short, 429 past the client's rate", statuses)
	}
	t.Logf("%d slow bodies: the last ended %s after the last started", n, last.Sub(started).Round(time.Millisecond))
	if late := last.Sub(started); late > readTimeout+2*time.Second {
		t.Errorf("the last connection ended %s after its request began, want within the read timeout %s and 2s of slack", late, readTimeout)
	}
	if got := openFilesSettled(t, baseline+5); got > baseline+5 {
		t.Errorf("%d open files after the connections ended, baseline %d", got, baseline)
	} else {
		t.Logf("%d open files after the connections ended", got)
	}

	// Shutdown with such connections open waits for the read deadline at
	// most, not for the grace period. net/http's Shutdown sees the last
	// connection end at its next look, and it looks every 500 ms (with up
	// to a tenth more) once it has waited half a second: the connections
	// ending a little after the read timeout are seen at about 1.55 s, and
	// any later than that at about 2.1 s. The second of slack is for the
	// server, not for that wait.
	const shutdownLooks = 550 * time.Millisecond
	conns = slowBodies(t, addr, n)
	begin := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	took := time.Since(begin)
	t.Logf("shutdown with %d slow bodies open took %s", n, took.Round(time.Millisecond))
	if took > readTimeout+shutdownLooks+time.Second {
		t.Errorf("shutdown took %s, want within a second of the read timeout %s and net/http's look at the connections (%s)", took, readTimeout, shutdownLooks)
	}
	awaitClosed(t, conns, 10*time.Second)
	if got := openFilesSettled(t, baseline+5); got > baseline+5 {
		t.Errorf("%d open files after shutdown, baseline %d", got, baseline)
	} else {
		t.Logf("%d open files after shutdown", got)
	}
}

func TestAClientPastItsConnectionBoundIsClosedOnArrivalAndCounted(t *testing.T) {
	addr, _ := runServer(t, map[string]string{"RISKCHART_MAX_CONNS_PER_CLIENT": "4"})
	// From an address of its own: the start-up's health checks, from
	// 127.0.0.1, may not be closed on the server's side yet.
	from := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	for range 3 { // with the one the HTTP client below uses, four
		c, err := from.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	tr := &http.Transport{DialContext: from.DialContext, MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	metrics := func() string {
		res, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	metrics()
	c, err := from.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a guard, not a measure
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a fifth connection: read %v, want it closed", err)
	}
	m := metrics() // on the fourth connection, kept alive
	for _, want := range []string{"\nriskchart_connections_refused_total 1\n", "\nriskchart_connections_open "} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// Another client is served meanwhile.
	res, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("another client: %v", err)
	}
	res.Body.Close()
}

func TestMetricsShowTheGoRuntimeAndTheProcess(t *testing.T) {
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_open_fds", "process_resident_memory_bytes", "riskchart_connections_open", "riskchart_pages_kept_bytes"} {
		if !strings.Contains(string(b), "\n"+name+" ") {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if t.Failed() {
		fmt.Println(string(b))
	}
}
