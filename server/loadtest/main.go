// Command loadtest measures the gateway on loopback: it starts the sandbox
// venue and the gateway in-process, plus a plain httputil.ReverseProxy to
// the same sandbox for comparison, and drives each with concurrent clients
// for a fixed time. It prints requests per second, p50/p99 latency and venue
// calls per 1000 browser requests for each scenario, and the ratio to the
// plain proxy. Only 127.0.0.1 is ever addressed; every run is bounded.
//
//	go run ./server/loadtest -duration 5s -clients 64
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riskchart/riskchart/server/gateway"
	"github.com/riskchart/riskchart/server/sandbox"
	"github.com/riskchart/riskchart/server/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	duration := fs.Duration("duration", 5*time.Second, "how long each scenario runs")
	nClients := fs.Int("clients", 64, "concurrent clients (browsers)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *duration <= 0 || *duration > 2*time.Minute || *nClients < 1 || *nClients > 4096 {
		return fmt.Errorf("-duration must be in (0, 2m] and -clients in [1, 4096]")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// The venue, with its limits lifted so that the plain proxy is measured,
	// not the venue's 429s; the gateway keeps its own budget to the venue.
	sb, err := sandbox.New(sandbox.Config{PublicLimit: sandbox.Limit{Requests: 1 << 30, Per: time.Second}})
	if err != nil {
		return err
	}
	venueURL, err := serve(ctx, sb)
	if err != nil {
		return err
	}
	client, err := venue.New(venue.Config{BaseURL: venueURL, Logger: quiet})
	if err != nil {
		return err
	}
	gw, err := gateway.New(gateway.Config{Venue: client, Logger: quiet, PerIPRate: 1e9, PerIPBurst: 1 << 30})
	if err != nil {
		return err
	}
	gwURL, err := serve(ctx, gw)
	if err != nil {
		return err
	}
	target, _ := url.Parse(venueURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // clients leaving at the end of a run are not news
	proxyURL, err := serve(ctx, proxy)
	if err != nil {
		return err
	}

	type scenario struct {
		name  string
		paths func(worker, i int) string
	}
	clients := *nClients
	codes := []string{"BTC-USDT", "ETH-USDT", "SOL-USDT", "XRP-USDT", "DOGE-USDT", "LTC-USDT"}
	periods := venueapi.Periods()
	now := venueapi.Period1Min.Start(time.Now().Unix())
	scenarios := []scenario{
		{"one series, size=300 (many browsers polling)", func(int, int) string {
			return venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=300"
		}},
		{"many series, size=300", func(w, i int) string {
			return fmt.Sprintf("%s?contract_code=%s&period=%s&size=300", venueapi.PathKLine, codes[(w+i)%len(codes)], periods[(w*7+i)%len(periods)])
		}},
		{"cold range scan, 2000 x 1min chunks back in time", func(w, i int) string {
			// Two years hold about 520 chunks of 2000 minutes per contract:
			// clients share out the chunks of the six contracts, each asked once.
			k := w + i*clients
			to := now - int64(k%520+1)*2000*60
			return fmt.Sprintf("%s?contract_code=%s&period=1min&from=%d&to=%d", venueapi.PathKLine, codes[(k/520)%len(codes)], to-1999*60, to)
		}},
	}
	fmt.Fprintf(out, "loopback, %d clients, %s per run, GOMAXPROCS-bound machine\n", *nClients, *duration)
	fmt.Fprintf(out, "%-48s %-8s %10s %9s %9s %14s\n", "scenario", "server", "req/s", "p50", "p99", "venue/1000req")
	for _, sc := range scenarios {
		var results [2]result
		for k, base := range []string{gwURL, proxyURL} {
			before := sb.Received(venueapi.PathKLine)
			results[k] = load(ctx, base, *nClients, *duration, sc.paths)
			results[k].venueCalls = sb.Received(venueapi.PathKLine) - before
			name := []string{"gateway", "proxy"}[k]
			r := results[k]
			fmt.Fprintf(out, "%-48s %-8s %10.0f %9s %9s %14.1f  (%d errors)\n", sc.name, name, r.rps(), r.pct(50), r.pct(99),
				1000*float64(r.venueCalls)/float64(max(r.n, 1)), r.errors)
		}
		fmt.Fprintf(out, "%-48s ratio gateway/proxy throughput: %.1fx\n", "", results[0].rps()/max(results[1].rps(), 1))
	}
	return nil
}

func serve(ctx context.Context, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	go func() { <-ctx.Done(); srv.Close() }()
	return "http://" + ln.Addr().String(), nil
}

type result struct {
	n, errors  int64
	elapsed    time.Duration
	lat        []time.Duration
	venueCalls int64
}

func (r result) rps() float64 { return float64(r.n) / r.elapsed.Seconds() }

func (r result) pct(p int) string {
	if len(r.lat) == 0 {
		return "-"
	}
	return r.lat[min(len(r.lat)-1, len(r.lat)*p/100)].Round(10 * time.Microsecond).String()
}

// load runs clients closed-loop for d, each sending the next path as soon as
// the last answer is read.
func load(ctx context.Context, base string, clients int, d time.Duration, paths func(worker, i int) string) result {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu     sync.Mutex
		lat    []time.Duration
		n, bad atomic.Int64
		wg     sync.WaitGroup
	)
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+paths(w, i), nil)
				res, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						bad.Add(1)
					}
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					bad.Add(1)
				}
				local = append(local, time.Since(t0))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return result{n: n.Load(), errors: bad.Load(), elapsed: time.Since(start), lat: lat}
}
