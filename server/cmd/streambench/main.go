// Command streambench measures the candle stream (GET /api/v1/stream/kline)
// against the polling it replaces, on one machine: the server binary as a
// process of its own, so that its memory and CPU are its own; the sandbox
// venue in this process, so that the time the venue answered a candle and
// the time a viewer read it come from one clock. Each run holds -viewers
// viewers of -series series, spread over many loopback client addresses
// with the server's protections on (docs/performance.md#the-stream-bench).
//
//	go run ./server/cmd/streambench -bin bin/riskchart
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/riskchart/riskchart/server/internal/cmdline"
	"github.com/riskchart/riskchart/server/internal/latency"
	"github.com/riskchart/riskchart/venueapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "streambench:", err)
		os.Exit(1)
	}
}

// flags are the command line.
type flags struct {
	bin       string
	root      string
	viewers   int
	series    int
	addresses int
	warmup    time.Duration
	duration  time.Duration
	poll      bool
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("streambench", flag.ContinueOnError)
	fs.StringVar(&f.bin, "bin", "bin/riskchart", "the server binary (make build)")
	fs.StringVar(&f.root, "root", ".", "the folder holding web/, which the server serves (RISKCHART_ROOT)")
	fs.IntVar(&f.viewers, "viewers", 10_000, "viewers, each with a stream (or a poll a second) of one series")
	fs.IntVar(&f.series, "series", 20, "series the viewers are spread over, at most 30")
	fs.IntVar(&f.addresses, "addresses", 400, "loopback client addresses (127.0.x.y) the viewers come from, each within the server's caps per client")
	fs.DurationVar(&f.warmup, "warmup", 5*time.Second, "how long each run settles before it is measured")
	fs.DurationVar(&f.duration, "duration", 20*time.Second, "how long each run is measured")
	fs.BoolVar(&f.poll, "poll", true, "also measure the same viewers polling once a second, for comparison")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case f.viewers < 1 || f.viewers > 15_000:
		return f, errors.New("-viewers must be from 1 to 15000: each is a connection on each side, within the descriptors a process may hold")
	case f.series < 1 || f.series > len(allSeries()):
		return f, fmt.Errorf("-series must be from 1 to %d", len(allSeries()))
	case f.addresses < 1 || f.addresses > 60_000:
		return f, errors.New("-addresses must be from 1 to 60000")
	case (f.viewers+f.addresses-1)/f.addresses > 32:
		return f, errors.New("-viewers / -addresses must be at most 32, the server's default streams per client")
	case f.warmup < 0 || f.duration < time.Second:
		return f, errors.New("-warmup must not be negative and -duration must be at least 1s")
	}
	return f, nil
}

// allSeries are the series a run may use: five swaps of the sandbox in six
// periods, the shortest first.
func allSeries() []string {
	var out []string
	for _, p := range []venueapi.Period{venueapi.Period1Min, venueapi.Period5Min, venueapi.Period15Min, venueapi.Period30Min, venueapi.Period60Min, venueapi.Period4Hour} {
		for _, code := range []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT"} {
			out = append(out, "contract_code="+code+"&period="+string(p))
		}
	}
	return out
}

func run(ctx context.Context, args []string, out io.Writer) error {
	f, err := parseFlags(args)
	if err != nil {
		return cmdline.Result(err)
	}
	series := allSeries()[:f.series]
	venue, err := startVenue(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Stream bench: %d viewers over %d series from %d client addresses; a new server process per run, settled %s, then measured for %s.\n",
		f.viewers, len(series), f.addresses, f.warmup, f.duration)
	stream, err := measure(ctx, f, venue, series, modeStream)
	if err != nil {
		return err
	}
	stream.print(out, "Pushed (SSE)")
	if !f.poll {
		return nil
	}
	polled, err := measure(ctx, f, venue, series, modePoll)
	if err != nil {
		return err
	}
	polled.print(out, "Polled once a second")
	fmt.Fprintln(out, "Targets:")
	check := func(ok bool, what string) {
		verdict := "met"
		if !ok {
			verdict = "NOT met"
		}
		fmt.Fprintf(out, "  %-48s %s\n", what, verdict)
	}
	for _, t := range targets(stream, polled) {
		check(t.met, t.what)
	}
	return nil
}

// target is one of the bench's targets, and whether a run met it.
type target struct {
	what string
	met  bool
}

// targets judges the two runs. A run that did not serve all its viewers
// measured less load than it claims, so every target needs both runs whole.
func targets(stream, polled result) []target {
	whole := stream.whole() && polled.whole()
	return []target{
		{"every viewer served throughout, in both runs", whole},
		{"push latency p99 ≤ 100 ms", whole && stream.samples > 0 && stream.p99 <= 100*time.Millisecond}, // no candle read: no p99
		{"≤ 30 KB resident per subscriber", whole && stream.perViewer <= 30<<10},
		{"CPU below the polling run's", whole && stream.cpu < polled.cpu},
	}
}

// whole reports whether every viewer was served throughout the run: each
// connected and stayed, no stream dropped, every poll answered with candles.
func (r result) whole() bool {
	return r.failed == 0 && r.ended == 0 && r.dropped == 0 && r.refused == 0 && r.viewers > 0
}

// mode is how a run's viewers follow their series.
type mode int

const (
	modeStream mode = iota // one stream each
	modePoll               // GET size=2 once a second each, as charts did
)

// result is what one run measured.
type result struct {
	viewers, failed int
	ended           int   // streams or polls that ended after the warm-up, before the run did
	refused         int64 // polls not answered with candles (429s, error envelopes)
	p50, p99        time.Duration
	samples         int
	unmatched       int     // candles read that no venue answer of the window holds
	idle, rss       int64   // resident bytes of the server before the viewers came, and with them
	dropped         float64 // streams the server dropped as too slow
	perViewer       float64 // resident bytes per viewer over the idle server
	cpu             float64 // the server's CPU, in cores
	clientCPU       float64 // this process's: the viewers and the venue
	venueCalls      float64 // KLine calls the venue received per series per second
	requests        float64 // requests per second the server answered
}

func (r result) print(out io.Writer, name string) {
	fmt.Fprintf(out, "%s: %d viewers connected (%d failed, %d ended during the run, %d polls not answered with candles)\n",
		name, r.viewers, r.failed, r.ended, r.refused)
	fmt.Fprintf(out, "  latency, venue answer to viewer's read:  p50 %6.1f ms   p99 %6.1f ms   (%d candles read, %d unmatched)\n",
		ms(r.p50), ms(r.p99), r.samples, r.unmatched)
	fmt.Fprintf(out, "  server resident memory:                  %6.1f MiB (%.1f MiB idle): %.1f KiB per viewer\n", mib(r.rss), mib(r.idle), r.perViewer/1024)
	fmt.Fprintf(out, "  server CPU:                              %6.1f %% of one core (the viewers and the venue: %.1f %%)\n", r.cpu*100, r.clientCPU*100)
	fmt.Fprintf(out, "  requests answered:                       %6.0f per second;  venue KLine calls: %.2f per series per second\n", r.requests, r.venueCalls)
	if name == "Pushed (SSE)" {
		fmt.Fprintf(out, "  streams dropped as too slow:             %6.0f\n", r.dropped)
	}
}

// measure starts a server, loads every series as charts do first, and
// measures it idle; then runs f.viewers viewers in mode m for the warm-up
// and the window, and stops it.
func measure(ctx context.Context, f flags, venue *venue, series []string, m mode) (result, error) {
	srv, err := startServer(ctx, f, venue.url)
	if err != nil {
		return result{}, err
	}
	defer srv.stop()
	for _, q := range series {
		if err := get(ctx, srv.url+venueapi.PathKLine+"?"+q+"&size=300"); err != nil {
			return result{}, fmt.Errorf("loading %s: %w", q, err)
		}
	}
	time.Sleep(time.Second)
	idle, err := srv.usage()
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	viewers := make([]*viewer, f.viewers)
	for i := range viewers {
		viewers[i] = &viewer{query: series[i%len(series)], from: clientAddr(i % f.addresses), srv: srv, venue: venue}
	}
	connected := make(chan error, len(viewers))
	sem := make(chan struct{}, 128) // a burst of 10,000 dials overflows the listen backlog
	for _, v := range viewers {
		sem <- struct{}{}
		go func() {
			var err error
			if m == modeStream {
				err = v.stream(ctx, func() { <-sem })
			} else {
				err = v.poll(ctx, func() { <-sem })
			}
			if err != nil && ctx.Err() == nil {
				connected <- err
			}
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
	time.Sleep(f.warmup)
	var r result
	var firstErr error
	for more := true; more; {
		select {
		case err := <-connected:
			r.failed++
			firstErr = cmpErr(firstErr, err)
		default:
			more = false
		}
	}
	r.viewers = f.viewers - r.failed
	if r.viewers == 0 {
		return r, fmt.Errorf("no viewer connected: %w", firstErr)
	}
	before, err := srv.usage()
	if err != nil {
		return r, err
	}
	calls0, req0, self0 := venue.calls(), srv.requests(ctx), selfCPU()
	began := time.Now()
	venue.window(began)
	for _, v := range viewers {
		v.measuring.Store(true)
	}
	time.Sleep(f.duration)
	for _, v := range viewers {
		v.measuring.Store(false)
	}
	took := time.Since(began)
	for more := true; more; { // viewers that ended since the warm-up: the window lost them
		select {
		case err := <-connected:
			r.ended++
			firstErr = cmpErr(firstErr, err)
		default:
			more = false
		}
	}
	after, err := srv.usage()
	if err != nil {
		return r, err
	}
	r.idle, r.rss = idle.rss, after.rss
	if m == modeStream {
		r.dropped, _ = srv.metric(ctx, "riskchart_streams_dropped_total")
	}
	r.perViewer = float64(before.rss-idle.rss) / float64(r.viewers)
	r.cpu = (after.cpu - before.cpu).Seconds() / took.Seconds()
	r.clientCPU = (selfCPU() - self0).Seconds() / took.Seconds()
	r.venueCalls = float64(venue.calls()-calls0) / float64(len(series)) / took.Seconds()
	r.requests = float64(srv.requests(ctx)-req0) / took.Seconds()
	var all []time.Duration
	for _, v := range viewers {
		v.mu.Lock()
		all = append(all, v.latencies...)
		v.mu.Unlock()
		r.unmatched += int(v.unmatched.Load())
		r.refused += v.refused.Load()
	}
	r.samples = len(all)
	if len(all) > 0 {
		slices.Sort(all)
		r.p50, r.p99 = latency.Percentile(all, 50), latency.Percentile(all, 99)
	}
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "streambench: %d viewers failed to connect and %d ended during the run, the first with: %v\n", r.failed, r.ended, firstErr)
	}
	return r, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// clientAddr is the i-th loopback client address, 127.0.x.y from 127.0.1.1:
// Linux lets a socket bind any address of 127/8.
func clientAddr(i int) *net.TCPAddr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, byte(1+i/250), byte(1+i%250))}
}

// get asks url and reads its answer, which must be 200.
func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", res.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}

// selfCPU is the user and system time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(b int64) float64        { return float64(b) / (1 << 20) }
