package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
)

// server is the Riskchart binary, running as a process of its own.
type server struct {
	url  string
	cmd  *exec.Cmd
	done chan error
}

var servingOn = regexp.MustCompile(`serving on (http://\S+)/`)

// startServer starts the binary against the venue at venueURL, on a free
// loopback port, with its protections as deployed: RISKCHART_MAX_CONNS_PER_CLIENT
// and the stream caps at their defaults, the client rate on.
func startServer(ctx context.Context, f flags, venueURL string) (*server, error) {
	bin, err := filepath.Abs(f.bin)
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(f.root)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.SysProcAttr = servertest.ChildAttr()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "RISKCHART_ROOT=" + root,
		"RISKCHART_ADDR=127.0.0.1:0", "RISKCHART_VENUE_URL=" + venueURL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// A line per request at 10,000 polls a second: read and dropped, so
	// that the server never waits on its log; the last lines tell a failure.
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (make build first): %w", bin, err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	tail := make(chan string, 1)
	go func() {
		var last []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if last = append(last, sc.Text()); len(last) > 5 {
				last = last[1:]
			}
		}
		tail <- strings.Join(last, "\n")
	}()
	go func() { s.done <- cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := servingOn.FindStringSubmatch(sc.Text()); m != nil {
			s.url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if s.url == "" {
		s.stop()
		return nil, fmt.Errorf("the server did not start:\n%s", <-tail)
	}
	deadline := time.Now().Add(10 * time.Second)
	for get(ctx, s.url+"/healthz") != nil {
		if time.Now().After(deadline) {
			s.stop()
			return nil, errors.New("the server did not answer /healthz within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s, nil
}

// stop ends the server as deployments do, with SIGTERM.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// usage is what the server's process has used so far.
type usage struct {
	rss int64         // resident bytes now
	cpu time.Duration // user and system time since it started
}

// clockTicks is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTicks = 100

// usage reads the process's resident memory (VmRSS of /proc/<pid>/status)
// and CPU time (utime and stime of /proc/<pid>/stat).
func (s *server) usage() (usage, error) {
	pid := strconv.Itoa(s.cmd.Process.Pid)
	var u usage
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return u, fmt.Errorf("reading the server's memory: %w", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return u, fmt.Errorf("reading VmRSS %q: %w", line, err)
			}
			u.rss = kb << 10
		}
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return u, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	// pid (comm) state ppid …: utime and stime are the 14th and 15th
	// fields, the 12th and 13th after the command's closing parenthesis.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 13 {
		return u, fmt.Errorf("reading /proc/%s/stat: %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return u, fmt.Errorf("reading /proc/%s/stat: %w", pid, err)
	}
	u.cpu = time.Duration(utime+stime) * time.Second / clockTicks
	return u, nil
}

// metric reads the sum of a metric's series from /metrics.
func (s *server) metric(ctx context.Context, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	sum, found := 0.0, false
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum, found = sum+v, true
		}
	}
	if !found {
		return 0, fmt.Errorf("no %s in /metrics", name)
	}
	return sum, sc.Err()
}

// requests is how many requests the server has answered (0 if unknown).
func (s *server) requests(ctx context.Context) float64 {
	n, _ := s.metric(ctx, "riskchart_requests_total")
	return n
}
