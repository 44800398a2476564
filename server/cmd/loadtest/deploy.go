package main

// The deployment run (-deploy) measures the built binary as it is deployed:
// separate processes, alone and as replicas sharing one Redis behind nginx,
// beside nginx's own proxy_cache in front of the venue, all under the same
// closed-loop load. See docs/performance.md#the-deployment-run.

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/riskchart/riskchart/server/internal/acceptencoding"
	"github.com/riskchart/riskchart/server/internal/cluster"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

//go:embed nginx.conf.tmpl
var nginxConfText string

const (
	startWait = 20 * time.Second // for a process to answer
	stopWait  = 15 * time.Second // for SIGTERM before SIGKILL: a replica's shutdown timeout is 10 s
	replicas  = 2                // behind the load balancer, sharing one Redis
)

// deployTarget is one way browsers reach the candles.
type deployTarget struct {
	name     string
	base     string
	encoding string // the clients' Accept-Encoding
}

// deployment is everything the run started: the servers in their order of
// start, and the folder holding their files.
type deployment struct {
	dir        string
	procs      []*process
	venueCalls counter // KLine calls the sandbox received, from anyone
	clustered  bool    // whether the binary reads RISKCHART_REDIS_URL
	nginx      nginxConfig
	addrs      []string // the binary alone, then each replica
	versions   string   // nginx's and redis-server's
}

// runDeploy starts the deployment, measures each target, prints one table
// and the targets, and stops everything it started, whatever happens.
func runDeploy(ctx context.Context, f flags, out io.Writer) error {
	d := &deployment{}
	defer d.stop()
	if err := d.start(ctx, f); err != nil {
		return err
	}
	sc := oneSeries()
	targets := []deployTarget{
		{"single binary, direct", "http://" + d.addrs[0], f.encoding},
		{"clustered replica, direct", "http://" + d.addrs[1], f.encoding},
		{"clustered replica, via nginx", "http://" + d.nginx.OneReplica, f.encoding},
		{fmt.Sprintf("%d clustered replicas, via nginx", replicas), "http://" + d.nginx.Balancer, f.encoding},
		{"nginx proxy_cache alone", "http://" + d.nginx.Cache, f.encoding},
		{"nginx proxy_cache alone, uncompressed", "http://" + d.nginx.Cache, ""},
		{"nginx proxy_cache keeping gzip, 2 tiers", "http://" + d.nginx.CacheGzipped, f.encoding},
	}

	fmt.Fprintf(out, "deployment on loopback, %d cores shared by the load generator (GOMAXPROCS %d), the replicas (GOMAXPROCS their default), %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), d.versions)
	fmt.Fprintf(out, "replicas: RISKCHART_TRUSTED_PROXIES=127.0.0.1, per-client limits at their defaults, request log to a file; clustered: RISKCHART_REDIS_URL (one redis-server), RISKCHART_REPLICAS=%d", replicas)
	if !d.clustered {
		fmt.Fprint(out, " (this binary has no -redis-url: the clustered replicas run without shared state)")
	}
	fmt.Fprintf(out, "\nnginx: worker_processes %s, upstream keepalive, X-Forwarded-For appended; proxy_cache_valid 200 %s, proxy_cache_lock, proxy_cache_use_stale updating, background update, gzip_comp_level 1 for JSON (per answer, or kept by a second tier)\n",
		d.nginx.Workers, d.nginx.Refresh)
	fmt.Fprintf(out, "%s: %d clients, %d round(s) of at most %s or %d requests per target, in alternating order, pooled; refresh interval %s; Accept-Encoding %q unless said\n",
		sc.name, f.clients, f.rounds, f.duration, f.requests, f.refresh, f.encoding)

	// How each answer comes over the wire, asked once as the clients ask.
	wire := make([]string, len(targets))
	var unzipped []string
	for i, t := range targets {
		coding, size, err := probe(ctx, t.base+sc.path(0, 0), t.encoding)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		wire[i] = fmt.Sprintf("%s, %.1f kB", coding, float64(size)/1000)
		if acceptencoding.Weight([]string{t.encoding}, "gzip") > 0 && coding != "gzip" {
			unzipped = append(unzipped, t.name)
		}
	}

	res, err := d.measure(ctx, f, sc, targets)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%-40s %9s %9s %9s %14s %12s  %s\n", "target", "req/s", "p50", "p99", "venue/1000req", "venue calls", "answer on the wire")
	for i, t := range targets {
		r := res[i]
		fmt.Fprintf(out, "%-40s %9.0f %9s %9s %14.3f %12d  %s  (%d errors)\n", t.name, r.rps(), r.pct(50), r.pct(99),
			1000*float64(r.venueCalls)/float64(max(r.sent, 1)), r.venueCalls, wire[i], r.errors)
	}
	single, replica, viaNginx, balanced, cache, cacheGzipped := res[0], res[1], res[2], res[3], res[4], res[6]
	fmt.Fprintf(out, "%-40s %d replicas / one, both via nginx: throughput %.2fx, p99 %.2fx\n", "", replicas,
		ratio(balanced.rps(), viaNginx.rps()), ratio(float64(balanced.quantile(99)), float64(viaNginx.quantile(99))))
	fmt.Fprintf(out, "%-40s one replica / nginx proxy_cache keeping gzip: throughput %.2fx, p99 %.2fx\n", "",
		ratio(single.rps(), cacheGzipped.rps()), ratio(float64(single.quantile(99)), float64(cacheGzipped.quantile(99))))

	fmt.Fprintln(out)
	fmt.Fprintln(out, verdict(fmt.Sprintf("every answer asked for with gzip came with Content-Encoding: gzip, from the replicas and from nginx (not: %s)", orNone(unzipped)),
		len(unzipped) == 0))
	// A refusal is answered fast: a run with errors proves nothing.
	fmt.Fprintln(out, verdict(fmt.Sprintf("one replica >= 1.2 x nginx proxy_cache with gzip, no errors (%.0f vs %.0f req/s: %.2fx; p99 %s vs %s)",
		single.rps(), cache.rps(), ratio(single.rps(), cache.rps()), single.pct(99), cache.pct(99)),
		single.rps() >= 1.2*cache.rps() && single.errors == 0 && cache.errors == 0))
	clusterTarget := fmt.Sprintf("the clustered replica's hit path >= 0.8 x the single binary's, direct, no errors (%.0f vs %.0f req/s: %.2fx; p99 %s vs %s)",
		replica.rps(), single.rps(), ratio(replica.rps(), single.rps()), replica.pct(99), single.pct(99))
	if !d.clustered {
		fmt.Fprintln(out, "not measured:  "+clusterTarget+": the binary has no RISKCHART_REDIS_URL yet")
	} else {
		fmt.Fprintln(out, verdict(clusterTarget, replica.rps() >= 0.8*single.rps() && replica.errors == 0 && single.errors == 0))
	}
	return nil
}

// measure runs the load against each target f.rounds times and pools each
// target's runs. Rounds go in alternating order, so that a host slowing
// down or speeding up meanwhile (other work on the two cores) weighs on
// every target alike.
func (d *deployment) measure(ctx context.Context, f flags, sc scenario, targets []deployTarget) ([]result, error) {
	res := make([]result, len(targets))
	for round := range f.rounds {
		for k := range targets {
			i := k
			if round%2 == 1 {
				i = len(targets) - 1 - k
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err := warm(ctx, targets[i].base, sc); err != nil {
				return nil, fmt.Errorf("%s: %w", targets[i].name, err)
			}
			before, _ := d.venueCalls()
			tf := f
			tf.encoding = targets[i].encoding
			r := load(ctx, targets[i].base, tf, 0, sc.path)
			settle(d.venueCalls) // calls shared by requests cut off at the end still land
			after, _ := d.venueCalls()
			r.venueCalls = after - before
			res[i] = res[i].plus(r)
		}
	}
	return res, nil
}

// start starts the sandbox in-process, redis-server, the binary alone and
// as replicas sharing that Redis, and nginx in front of them and of the
// sandbox; it returns once each answers. What it started is in d, for stop,
// even when it fails.
func (d *deployment) start(ctx context.Context, f flags) error {
	bin, err := lookTool("-bin", f.bin, "build it with `make build`")
	if err != nil {
		return err
	}
	nginxBin, err := lookTool("-nginx", f.nginx, "install it with `make nginx` (Debian's nginx)")
	if err != nil {
		return err
	}
	redisBin, err := lookTool("-redis-server", f.redisServer, "install it with `make redis-server` (Debian's redis-server)")
	if err != nil {
		return err
	}
	root, err := filepath.Abs(f.root)
	if err != nil {
		return fmt.Errorf("-root: %w", err)
	}
	// Without the cluster settings, the binary ignores their variables and
	// the "clustered" replicas run without shared state.
	if d.clustered, err = knowsFlag(ctx, bin, "-redis-url"); err != nil {
		return err
	}
	d.versions = fmt.Sprintf("%s and %s", version(ctx, nginxBin, "-v"), version(ctx, redisBin, "--version"))
	if d.dir, err = os.MkdirTemp("", "riskchart-deploy-"); err != nil {
		return fmt.Errorf("making the deployment's folder: %w", err)
	}

	// The venue, its per-IP limit lifted so that nginx's cache is measured
	// rather than the venue's 429s; the replicas keep their own budget.
	// It stops with ctx.
	sb, err := sandbox.New(sandbox.Config{PublicLimit: venueapi.Limit{Requests: 1 << 30, Per: time.Second}})
	if err != nil {
		return err
	}
	venueURL, err := serve(ctx, sb)
	if err != nil {
		return err
	}
	d.venueCalls = func() (int64, error) { return sb.Received(venueapi.PathKLine), nil }

	redisAddr, err := freeAddr()
	if err != nil {
		return err
	}
	_, redisPort, _ := net.SplitHostPort(redisAddr) // freeAddr's own host:port
	redis, err := d.run("redis", redisBin, os.Environ(),
		"--port", redisPort, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", d.dir, "--daemonize", "no", "--loglevel", "warning")
	if err != nil {
		return err
	}
	// Its port is dialled until it accepts before the client pings it once:
	// go-redis logs every refused dial to stderr, in the middle of the report.
	if err := redis.waitReady(ctx, func(ctx context.Context) error { return tcpOK(ctx, redisAddr) }); err != nil {
		return err
	}
	rc, err := cluster.Open("redis://"+redisAddr, cluster.Options{})
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := redis.waitReady(ctx, rc.Ping); err != nil {
		return err
	}

	// The binary alone, then the replicas: all start at once, then each is
	// waited for.
	cluster := []string{"RISKCHART_REDIS_URL=redis://" + redisAddr + "/0", "RISKCHART_REPLICAS=" + strconv.Itoa(replicas)}
	d.addrs = make([]string, 1+replicas)
	procs := make([]*process, len(d.addrs))
	for i := range d.addrs {
		if d.addrs[i], err = freeAddr(); err != nil {
			return err
		}
		env, name := replicaEnv(d.addrs[i], venueURL, root, f.refresh), "single"
		if i > 0 {
			env, name = append(env, cluster...), "replica"+strconv.Itoa(i)
		}
		if procs[i], err = d.run(name, bin, env); err != nil {
			return err
		}
	}
	for i, p := range procs {
		healthz := "http://" + d.addrs[i] + "/healthz"
		if err := p.waitReady(ctx, func(ctx context.Context) error { return httpOK(ctx, healthz) }); err != nil {
			return err
		}
	}

	d.nginx = nginxConfig{Workers: "auto", Dir: d.dir, Log: filepath.Join(d.dir, "nginx.log"), User: nginxUser(),
		Replicas: d.addrs[1:], Venue: strings.TrimPrefix(venueURL, "http://"), Refresh: nginxDuration(f.refresh)}
	ports := []*string{&d.nginx.Balancer, &d.nginx.OneReplica, &d.nginx.Cache, &d.nginx.CacheGzipped, &d.nginx.Compressor}
	for _, a := range ports {
		if *a, err = freeAddr(); err != nil {
			return err
		}
	}
	confPath := filepath.Join(d.dir, "nginx.conf")
	if err := d.nginx.write(confPath); err != nil {
		return err
	}
	nginx, err := d.run("nginx", nginxBin, os.Environ(), "-p", d.dir+"/", "-c", confPath, "-e", d.nginx.Log)
	if err != nil {
		return err
	}
	for _, a := range ports {
		if err := nginx.waitReady(ctx, func(ctx context.Context) error { return dialOK(ctx, *a) }); err != nil {
			return err
		}
	}
	return nil
}

// run starts a server of the deployment, its output to a file in d.dir.
func (d *deployment) run(name, bin string, env []string, args ...string) (*process, error) {
	p, err := startProcess(d.dir, name, bin, env, args...)
	if err == nil {
		d.procs = append(d.procs, p)
	}
	return p, err
}

// stop stops every server in the reverse order of their start (nginx
// first, Redis last), then removes their files.
func (d *deployment) stop() {
	for i := len(d.procs) - 1; i >= 0; i-- {
		d.procs[i].stop()
	}
	if d.dir != "" {
		os.RemoveAll(d.dir)
	}
}

// oneSeries is the cached answer of one series that every client polls.
func oneSeries() scenario {
	return scenario{"one series, size=300", 1, func(int, int) string {
		return venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=300"
	}}
}

// replicaEnv is a replica's whole environment: the caller's, less any
// RISKCHART_* setting of its own, plus the deployment's.
func replicaEnv(addr, venueURL, root string, refresh time.Duration) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RISKCHART_") {
			env = append(env, kv)
		}
	}
	// No venue keys: KLine is public, and the binary takes a venue without them.
	return append(env, "RISKCHART_ADDR="+addr, "RISKCHART_VENUE_URL="+venueURL, "RISKCHART_ROOT="+root,
		"RISKCHART_TRUSTED_PROXIES=127.0.0.1", "RISKCHART_REFRESH_INTERVAL="+refresh.String())
}

// nginxConfig fills nginx.conf.tmpl.
type nginxConfig struct {
	Workers      string
	User         string // empty: nginx's default
	Dir, Log     string
	Replicas     []string // host:port of each replica; the first also alone
	Venue        string
	Balancer     string // listen addresses, host:port
	OneReplica   string
	Cache        string
	CacheGzipped string // the cache that keeps answers compressed…
	Compressor   string // …by the server it caches, which gzips the venue's
	Refresh      string // proxy_cache_valid, in nginx's units
}

func (c nginxConfig) write(path string) error {
	t, err := template.New("nginx.conf").Parse(nginxConfText)
	if err != nil {
		return fmt.Errorf("reading nginx.conf.tmpl: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, c); err != nil {
		return fmt.Errorf("writing nginx's configuration: %w", err)
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// nginxUser is the user nginx's workers run as: root's own when nginx is
// started as root, since they run as nobody otherwise and could not write
// the cache and temporary files in the run's folder, which is root's.
func nginxUser() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	return ""
}

// nginxDuration writes d in nginx's time units, which take no fractions.
func nginxDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "ms"
}

// process is a server the deployment run started. Its output goes to a file
// in the run's folder, read back only to explain a failure.
type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	err  error         // its exit status, once done is closed
}

func startProcess(dir, name, bin string, env []string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	defer logFile.Close() // the child has its own copy
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = servertest.ChildAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// waitReady polls ready until it succeeds, the process exits, ctx ends or
// startWait passes.
func (p *process) waitReady(ctx context.Context, ready func(context.Context) error) error {
	deadline := time.Now().Add(startWait)
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it answered (%v); its output:\n%s", p.name, p.err, p.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer within %s: %w; its output:\n%s", p.name, startWait, err, p.tail())
		}
	}
}

// stop ends the process gently (SIGTERM), then by force.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopWait):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail is the end of the process's output.
func (p *process) tail() string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	return string(b[max(0, len(b)-4000):])
}

// lookTool finds a program a flag names: a path, or a name on PATH or in
// /usr/sbin (not on a user's PATH, and where Debian puts nginx).
func lookTool(flagName, v, remedy string) (string, error) {
	if strings.ContainsRune(v, '/') {
		if st, err := os.Stat(v); err != nil || st.IsDir() {
			return "", fmt.Errorf("%s: %s is not a program: %s", flagName, v, remedy)
		}
		return filepath.Abs(v)
	}
	if p, err := exec.LookPath(v); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(filepath.Join("/usr/sbin", v)); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s: %s is neither on PATH nor in /usr/sbin: %s", flagName, v, remedy)
}

// knowsFlag reports whether bin's usage lists flag.
func knowsFlag(ctx context.Context, bin, flag string) (bool, error) {
	out, err := exec.CommandContext(ctx, bin, "-h").CombinedOutput()
	if len(out) == 0 {
		return false, fmt.Errorf("asking %s -h for its flags: %v", bin, err)
	}
	return bytes.Contains(out, []byte("\n  "+flag+" ")), nil // -h exits 1 after the usage
}

// version is the first line a program prints for its version flag, as short
// as it says it.
func version(ctx context.Context, bin, flag string) string {
	out, _ := exec.CommandContext(ctx, bin, flag).CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	line = strings.TrimPrefix(line, "nginx version: ")
	if i := strings.Index(line, " v="); i >= 0 { // redis-server: "Redis server v=7.0.15 sha=…"
		line = "redis-server " + strings.Fields(line[i+3:])[0]
	}
	return line
}

// freeAddr is a loopback address nobody listened on a moment ago: nginx and
// redis-server cannot be asked for port 0 and say which they took.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("picking a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// tcpOK is nil once addr accepts a connection.
func tcpOK(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

func httpOK(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, res.Status)
	}
	return nil
}

func dialOK(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// probe asks url once as the clients do and says how the answer came over
// the wire: its Content-Encoding ("identity" for none) and its size.
func probe(ctx context.Context, url, encoding string) (coding string, size int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	tr := &http.Transport{DisableCompression: true} // the bytes as sent
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("probing the answer: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return "", 0, fmt.Errorf("probing the answer: %w", err)
	}
	if err := checkAnswer(res.StatusCode, res.Header.Get("Content-Encoding"), body); err != nil {
		return "", 0, fmt.Errorf("probing the answer: %w", err)
	}
	size = int64(len(body))
	if coding = res.Header.Get("Content-Encoding"); coding == "" {
		coding = "identity"
	}
	return coding, size, nil
}

func ratio(a, b float64) float64 { return a / max(b, 1e-9) }

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
