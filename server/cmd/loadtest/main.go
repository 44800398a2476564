// Command loadtest measures the gateway on loopback. By default it starts the
// sandbox venue and the gateway in-process, plus a plain httputil.ReverseProxy
// to the same sandbox for comparison; -gateway and -venue point it at servers
// already running instead (loopback only). Each scenario drives closed-loop
// clients (each sends its next request as soon as the last answer is read:
// the worst case of browsers polling every second) for -duration or
// -requests, whichever ends first, and prints requests per second, p50/p99
// latency, venue calls per 1000 browser requests and per series per refresh
// interval, the ratio to the plain proxy, and whether the targets are met.
//
// -deploy measures the built binary as deployed instead (deploy.go): alone,
// as replicas sharing Redis behind nginx, and beside nginx's proxy_cache.
//
//	go run ./server/cmd/loadtest -duration 10s
//	go run ./server/cmd/loadtest -gateway http://127.0.0.1:8080 -venue http://127.0.0.1:9000
//	go run ./server/cmd/loadtest -deploy -bin bin/riskchart
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/riskchart/riskchart/server/internal/cmdline"
	"github.com/riskchart/riskchart/server/internal/gateway"
	"github.com/riskchart/riskchart/server/internal/latency"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// flags are the command line.
type flags struct {
	duration   time.Duration
	requests   int64
	clients    int
	gatewayURL string
	venueURL   string
	refresh    time.Duration
	rate       float64
	encoding   string

	deploy      bool   // measure the built binary as deployed (deploy.go)
	bin         string // the binary -deploy starts
	nginx       string
	redisServer string
	root        string // the replicas' RISKCHART_ROOT
	rounds      int    // runs per target, pooled
	cpuProfile  string // where to write a CPU profile of the in-process runs
}

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.DurationVar(&f.duration, "duration", 5*time.Second, "how long each run lasts at most (each scenario runs twice: gateway and proxy)")
	fs.Int64Var(&f.requests, "requests", 2_000_000, "how many requests each run sends at most")
	fs.IntVar(&f.clients, "clients", 32, "concurrent clients (browsers); on 2 cores, more starve the server of CPU")
	fs.StringVar(&f.gatewayURL, "gateway", "", "a running gateway to measure (loopback only); empty: start one in-process")
	fs.StringVar(&f.venueURL, "venue", "", "the venue the plain proxy forwards to (loopback only); empty: the in-process sandbox")
	fs.DurationVar(&f.refresh, "refresh", time.Second, "the gateway's refresh interval (set for the in-process one, assumed for -gateway)")
	fs.Float64Var(&f.rate, "rate", 20000, "requests per second of the paced run, where latency is judged at the target rate; 0: no paced run")
	fs.StringVar(&f.encoding, "accept-encoding", chromiumEncodings, "the Accept-Encoding the clients send (as a browser's fetch does); empty: none, for uncompressed answers")
	fs.BoolVar(&f.deploy, "deploy", false, "measure the built binary as deployed: alone, as replicas sharing one Redis behind nginx, and nginx's proxy_cache in front of the venue")
	fs.StringVar(&f.bin, "bin", "bin/riskchart", "the binary -deploy starts")
	fs.StringVar(&f.nginx, "nginx", "nginx", "the nginx -deploy starts: a path, or a name on PATH or in /usr/sbin")
	fs.StringVar(&f.redisServer, "redis-server", "redis-server", "the redis-server -deploy starts: a path, or a name on PATH or in /usr/sbin")
	fs.StringVar(&f.root, "root", ".", "the folder holding web/ and wasm_exec.js, for the replicas -deploy starts")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole in-process run (clients, gateway and sandbox) to this file")
	fs.IntVar(&f.rounds, "rounds", 1, "-deploy: runs of each target, in alternating order, pooled")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case f.duration <= 0 || f.duration > 2*time.Minute:
		return f, errors.New("-duration must be more than 0 and at most 2m")
	case f.requests < 1:
		return f, errors.New("-requests must be at least 1")
	case f.clients < 1 || f.clients > 4096:
		return f, errors.New("-clients must be from 1 to 4096")
	case f.rounds < 1 || f.rounds > 10:
		return f, errors.New("-rounds must be from 1 to 10")
	case f.refresh <= 0:
		return f, errors.New("-refresh must be more than 0")
	case f.rate < 0 || f.rate > 1e6:
		return f, errors.New("-rate must be from 0 to 1000000")
	case strings.ContainsAny(f.encoding, "\r\n"):
		return f, errors.New("-accept-encoding must be one header line")
	case f.deploy && (f.gatewayURL != "" || f.venueURL != ""):
		return f, errors.New("-deploy starts its own servers: leave out -gateway and -venue")
	case (f.gatewayURL == "") != (f.venueURL == ""):
		return f, errors.New("-gateway and -venue go together: the proxy needs the venue the gateway uses")
	}
	for name, u := range map[string]string{"-gateway": f.gatewayURL, "-venue": f.venueURL} {
		if u != "" && !loopback(u) {
			return f, fmt.Errorf("%s must be an http URL on a loopback address, not %q", name, u)
		}
	}
	return f, nil
}

func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost"
}

// scenario is a load shape: the path each client asks for next.
type scenario struct {
	name   string
	series int // distinct series asked for, each warmed before the run; 0: a scan, cold
	path   func(client, i int) string
}

// counter reports how many KLine calls the venue has received so far.
type counter func() (int64, error)

func run(ctx context.Context, args []string, out io.Writer) error {
	f, err := parseFlags(args)
	if err != nil {
		return cmdline.Result(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if f.deploy {
		return runDeploy(ctx, f, out)
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("creating the CPU profile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("starting the CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}

	gwURL, venueURL := f.gatewayURL, f.venueURL
	var gwCalls, proxyCalls counter
	if gwURL == "" {
		var sb *sandbox.Sandbox
		if gwURL, venueURL, sb, err = startInProcess(ctx, f.refresh); err != nil {
			return err
		}
		received := func() (int64, error) { return sb.Received(venueapi.PathKLine), nil }
		gwCalls, proxyCalls = received, received
	} else {
		gwCalls = func() (int64, error) { return scrapeVenueCalls(ctx, gwURL) }
	}
	target, err := url.Parse(venueURL)
	if err != nil {
		return err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // clients leaving at the end of a run are not news
	proxyURL, err := serve(ctx, proxy)
	if err != nil {
		return err
	}

	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"}
	periods := slices.DeleteFunc(venueapi.Periods(), func(p venueapi.Period) bool { return p == venueapi.Period1Hour }) // 60min's series
	now := venueapi.Period1Min.Start(time.Now().Unix())
	const chunks = 520 // two years of minutes in chunks of 2000
	scenarios := []scenario{
		oneSeries(),
		{fmt.Sprintf("%d series, size=300", len(codes)*len(periods)), len(codes) * len(periods), func(c, i int) string {
			k := c + i
			return fmt.Sprintf("%s?contract_code=%s&period=%s&size=300", venueapi.PathKLine, codes[k%len(codes)], periods[(k/len(codes))%len(periods)])
		}},
		{"cold range scan, 2000 x 1min back in time", 0, func(c, i int) string {
			// Clients share out the chunks of six contracts, each asked once.
			k := c + i*f.clients
			to := now - int64(k%chunks+1)*2000*60
			return fmt.Sprintf("%s?contract_code=%s&period=1min&from=%d&to=%d", venueapi.PathKLine, codes[(k/chunks)%len(codes)], to-1999*60, to)
		}},
	}

	fmt.Fprintf(out, "loopback, %d clients, runs of at most %s or %d requests, GOMAXPROCS %d, refresh interval %s, Accept-Encoding %q\n",
		f.clients, f.duration, f.requests, runtime.GOMAXPROCS(0), f.refresh, f.encoding)
	fmt.Fprintf(out, "%-44s %-8s %9s %9s %9s %14s %18s\n", "scenario", "server", "req/s", "p50", "p99", "venue/1000req", "venue/series/intv")
	var verdicts []string
	for si, sc := range scenarios {
		var res [2]result
		for k, srv := range []struct {
			name  string
			base  string
			calls counter
		}{{"gateway", gwURL, gwCalls}, {"proxy", proxyURL, proxyCalls}} {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := warm(ctx, srv.base, sc); err != nil {
				return err
			}
			before, err := count(srv.calls)
			if err != nil {
				return err
			}
			r := load(ctx, srv.base, f, 0, sc.path)
			settle(srv.calls) // calls shared by requests cut off at the end still land
			after, err := count(srv.calls)
			if err != nil {
				return err
			}
			r.venueCalls = after - before
			res[k] = r
			perSeries := "-"
			if sc.series > 0 && after >= 0 {
				intervals := max(r.elapsed.Seconds()/f.refresh.Seconds(), 1)
				perSeries = strconv.FormatFloat(float64(r.venueCalls)/float64(sc.series)/intervals, 'f', 2, 64)
			}
			per1000 := "-"
			if after >= 0 {
				per1000 = strconv.FormatFloat(1000*float64(r.venueCalls)/float64(max(r.sent, 1)), 'f', 1, 64)
			}
			fmt.Fprintf(out, "%-44s %-8s %9.0f %9s %9s %14s %18s  (%d errors)\n", sc.name, srv.name, r.rps(), r.pct(50), r.pct(99), per1000, perSeries, r.errors)
			if k == 0 && sc.series > 0 && after >= 0 {
				// A run of 3.5 intervals may see 4 refreshes of each series.
				bound := int64(sc.series) * (int64(r.elapsed/f.refresh) + 1)
				verdicts = append(verdicts, verdict(fmt.Sprintf("%s: at most 1 venue call per series per refresh interval (%d calls, at most %d)", sc.name, r.venueCalls, bound),
					r.venueCalls <= bound))
			}
			if k == 0 && si == 0 {
				verdicts = append(verdicts, verdict(fmt.Sprintf("%s: >= 20000 req/s closed-loop (%.0f req/s; p99 at saturation %s)", sc.name, r.rps(), r.pct(99)),
					r.rps() >= 20000))
			}
		}
		fmt.Fprintf(out, "%-44s ratio gateway/proxy: throughput %.1fx, p99 %.2fx\n", "", res[0].rps()/max(res[1].rps(), 1e-9),
			float64(res[0].quantile(99))/float64(max(res[1].quantile(99), 1)))
	}
	if f.rate > 0 && ctx.Err() == nil {
		// Latency at the target rate rather than at saturation. Timed from
		// the send; also from the scheduled time, which adds the generator's
		// own lateness (its timers share the two cores with the server) to
		// whatever a slow answer delayed.
		name := fmt.Sprintf("%s, paced at %.0f/s", scenarios[0].name, f.rate)
		r := load(ctx, gwURL, f, f.rate, scenarios[0].path)
		fmt.Fprintf(out, "%-44s %-8s %9.0f %9s %9s %14s %18s  (%d errors; from the scheduled time: p50 %s, p99 %s)\n", name, "gateway", r.rps(), r.pct(50), r.pct(99), "", "", r.errors,
			pct(r.late, 50), pct(r.late, 99))
		verdicts = append(verdicts, verdict(fmt.Sprintf("%s: p99 <= 5ms from the send at that rate (%.0f req/s, p99 %s; from the schedule %s)", name, r.rps(), r.pct(99), pct(r.late, 99)),
			r.rps() >= 0.98*f.rate && r.quantile(99) <= 5*time.Millisecond && r.errors == 0))
	}
	fmt.Fprintln(out)
	for _, v := range verdicts {
		fmt.Fprintln(out, v)
	}
	return nil
}

func verdict(target string, met bool) string {
	if met {
		return "target met:    " + target
	}
	return "target missed: " + target
}

// warm asks once for each series of sc, so that a polling run measures the
// steady state rather than the first fill.
func warm(ctx context.Context, base string, sc scenario) error {
	seen := map[string]bool{}
	for i := 0; len(seen) < sc.series && i < 100*sc.series; i++ {
		p := sc.path(0, i)
		if seen[p] {
			continue
		}
		seen[p] = true
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+p, nil)
		if err != nil {
			return err
		}
		res, err := http.DefaultClient.Do(req) // gzip undone by the Transport
		if err != nil {
			return fmt.Errorf("warming %s: %w", p, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err == nil {
			err = checkAnswer(res.StatusCode, "", body)
		}
		if err != nil {
			return fmt.Errorf("warming %s: %w", p, err)
		}
	}
	return nil
}

// minAnswer is the fewest bytes an answer of candles takes on the wire in
// these runs: all 25 monthly candles of the venue's history, gzipped, take
// more than 1 kB. The venue's error envelope, which its paths answer under
// HTTP 200 for a business error (docs/decisions.md#gateway-error-statuses),
// and an answer of no candles take less than 300 bytes.
const minAnswer = 512

// checkAnswer reports whether an answer, its body as it came in
// Content-Encoding encoding, is one of candles: HTTP 200 alone is not,
// since a business error comes under it too.
func checkAnswer(status int, encoding string, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	switch encoding {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("reading the gzipped answer: %w", err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("reading the gzipped answer: %w", err)
		}
	default:
		return fmt.Errorf("an answer in Content-Encoding %s, which this check does not read", encoding)
	}
	a, err := venueapi.DecodeKLine(body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if a.Status == nil || *a.Status != venueapi.StatusOK || len(a.Data) == 0 {
		return fmt.Errorf("an answer of no candles: %.200s", body)
	}
	return nil
}

// count reads c; -1 when there is nothing to count with.
func count(c counter) (int64, error) {
	if c == nil {
		return -1, nil
	}
	return c()
}

// settle waits until the venue has received nothing new for 200 ms (at most
// 5 s), so that a run is charged with the calls it caused.
func settle(c counter) {
	if c == nil {
		return
	}
	last, _ := c()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		n, _ := c()
		if n == last {
			return
		}
		last = n
	}
}

// startInProcess serves a sandbox and a gateway in front of it on loopback
// until ctx ends. The sandbox's per-IP limit is lifted so that the plain
// proxy is measured rather than the venue's 429s; the gateway keeps its own
// budget to the venue.
func startInProcess(ctx context.Context, refresh time.Duration) (gwURL, venueURL string, sb *sandbox.Sandbox, err error) {
	quiet := slog.New(slog.DiscardHandler)
	sb, err = sandbox.New(sandbox.Config{PublicLimit: venueapi.Limit{Requests: 1 << 30, Per: time.Second}})
	if err != nil {
		return "", "", nil, err
	}
	if venueURL, err = serve(ctx, sb); err != nil {
		return "", "", nil, err
	}
	client, err := venue.New(venue.Config{BaseURL: venueURL, Logger: quiet})
	if err != nil {
		return "", "", nil, err
	}
	// As a deployment behind a reverse proxy runs it: every protection on at
	// its defaults (the per-client rate included), loopback trusted as the
	// proxy, so that each simulated browser is known by the address in its
	// X-Forwarded-For; JSON request logs at Info (to nowhere).
	gw, err := gateway.New(gateway.Config{Venue: client, RefreshInterval: refresh,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Logger:         slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		return "", "", nil, err
	}
	if gwURL, err = serve(ctx, gw); err != nil {
		return "", "", nil, err
	}
	return gwURL, venueURL, sb, nil
}

func serve(ctx context.Context, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	return "http://" + ln.Addr().String(), nil
}

// scrapeVenueCalls sums the gateway's riskchart_venue_calls_total of KLine.
func scrapeVenueCalls(ctx context.Context, gwURL string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, gwURL+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("reading the gateway's metrics: %w", err)
	}
	defer res.Body.Close()
	var total float64
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, `riskchart_venue_calls_total{endpoint="kline"`) {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			v, err := strconv.ParseFloat(line[i+1:], 64)
			if err != nil {
				return 0, fmt.Errorf("reading the gateway's metrics: %q: %w", line, err)
			}
			total += v
		}
	}
	return int64(total), sc.Err()
}

type result struct {
	sent, done, errors int64
	elapsed            time.Duration
	lat                []time.Duration // sorted; from the send
	late               []time.Duration // sorted; paced runs: from the scheduled time
	venueCalls         int64
}

// plus pools two runs of one target: counts and times added, latencies merged.
func (r result) plus(o result) result {
	lat := append(slices.Clip(r.lat), o.lat...)
	slices.Sort(lat)
	late := append(slices.Clip(r.late), o.late...)
	slices.Sort(late)
	return result{sent: r.sent + o.sent, done: r.done + o.done, errors: r.errors + o.errors, elapsed: r.elapsed + o.elapsed,
		lat: lat, late: late, venueCalls: r.venueCalls + o.venueCalls}
}

func (r result) rps() float64 { return float64(r.done) / r.elapsed.Seconds() }

func (r result) quantile(p int) time.Duration { return latency.Percentile(r.lat, p) }

func (r result) pct(p int) string { return pct(r.lat, p) }

func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	return latency.Percentile(sorted, p).Round(10 * time.Microsecond).String()
}

// chromiumEncodings is the Accept-Encoding of Chromium's fetch.
const chromiumEncodings = "gzip, deflate, br, zstd"

// readBuffer is the size of a client's read buffers: a size=300 answer,
// uncompressed (about 44 kB), fits.
const readBuffer = 64 << 10

// browserAddrs are the X-Forwarded-For values of the simulated browsers:
// 8192 addresses, so that at 40,000 requests a second each browser sends
// about five, well within the default 50 a second of its own rate, as the
// many viewers behind one proxy do.
func browserAddrs() [][]string {
	out := make([][]string, 8192)
	for i := range out {
		out[i] = []string{netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}).String()}
	}
	return out
}

// errNotCandles is an answer too short to hold candles, or not a 200.
var errNotCandles = errors.New("not an answer of candles")

// discard is io.Discard without its ReadFrom, which would read through a
// buffer of its own (8 kB) instead of the client's.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// load runs f.clients for at most f.duration and f.requests: closed-loop
// when rate is 0, else each client's requests at fixed times so that all
// together send rate per second, latency timed from the scheduled time.
func load(ctx context.Context, base string, f flags, rate float64, path func(client, i int) string) result {
	// The clients read an answer in one or two system calls: they share the
	// two cores with the server, and reading 44 kB in the 4 kB and 8 kB steps
	// of the defaults (Transport's buffer, io.Copy's) cost the server about a
	// sixth of its throughput. DisableCompression keeps the answers as sent:
	// decoding them is a browser's work, not this machine's.
	tr := &http.Transport{MaxIdleConnsPerHost: f.clients, MaxConnsPerHost: f.clients, DisableCompression: true, ReadBufferSize: readBuffer}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, f.duration)
	defer cancel()
	var (
		mu         sync.Mutex
		lat, late  []time.Duration
		sent, done atomic.Int64
		bad        atomic.Int64
		wg         sync.WaitGroup
	)
	browsers := browserAddrs()
	start := time.Now()
	for c := range f.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			buf := make([]byte, readBuffer)
			var first bytes.Buffer // the first answer, checked whole
			checked := false
			var localLate []time.Duration
			for i := 0; ctx.Err() == nil; i++ {
				if sent.Add(1) > f.requests {
					sent.Add(-1)
					cancel()
					break
				}
				var scheduled time.Time
				if rate > 0 {
					scheduled = start.Add(time.Duration(float64(i*f.clients+c) / rate * float64(time.Second)))
					if d := time.Until(scheduled); d > 0 {
						select {
						case <-time.After(d):
						case <-ctx.Done():
							sent.Add(-1) // never sent
							continue
						}
					}
				}
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path(c, i), nil) // a valid URL: base parsed, path built here
				if f.encoding != "" {
					req.Header.Set("Accept-Encoding", f.encoding)
				}
				req.Header["X-Forwarded-For"] = browsers[(i*f.clients+c)%len(browsers)]
				res, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						bad.Add(1)
					}
					continue
				}
				// A client's first answer is read whole and checked for
				// candles; every other one is at least minAnswer bytes, which
				// no error envelope is.
				var n int64
				if checked {
					n, err = io.CopyBuffer(discard{}, res.Body, buf)
				} else {
					first.Reset()
					n, err = io.CopyBuffer(&first, res.Body, buf)
				}
				res.Body.Close()
				if err != nil && ctx.Err() != nil {
					continue // cut off at the end of the run
				}
				switch {
				case err != nil:
				case !checked:
					err = checkAnswer(res.StatusCode, res.Header.Get("Content-Encoding"), first.Bytes())
					checked = err == nil
				case res.StatusCode != http.StatusOK || n < minAnswer:
					err = errNotCandles
				}
				if err != nil {
					bad.Add(1) // an error, not a request done: a refusal is answered fast
					continue
				}
				local = append(local, time.Since(t0))
				if rate > 0 {
					localLate = append(localLate, time.Since(scheduled))
				}
				done.Add(1)
			}
			mu.Lock()
			lat = append(lat, local...)
			late = append(late, localLate...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	slices.Sort(late)
	return result{sent: sent.Load(), done: done.Load(), errors: bad.Load(), elapsed: elapsed, lat: lat, late: late}
}
