package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
	"github.com/riskchart/riskchart/venueapi"
)

// A replica stopped with SIGTERM behind nginx, configured as
// docs/deploy.md says, drops no request: nginx sends each one the replica
// could not answer to another. The position limits are asked with POST,
// which nginx retries on another upstream only when told it may.
func TestARollingStopBehindTheDocumentedNginxDropsNoRequest(t *testing.T) {
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx, err = exec.LookPath("/usr/sbin/nginx") // Debian's, off a user's PATH
	}
	if err != nil {
		msg := "nginx is neither on PATH nor in /usr/sbin (make nginx): the documented configuration was not tried"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg) // CI installs it: missing there, it is a failure, not a skip
		}
		t.Skip(msg)
	}
	doc, err := os.ReadFile("../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	// The documented location block for everything but the stream.
	_, after, _ := strings.Cut(string(doc), "```nginx")
	_, loc, ok := strings.Cut(after, "    location / {")
	loc, _, ok2 := strings.Cut(loc, "    }")
	if !ok || !ok2 {
		t.Fatal("docs/deploy.md has no nginx location / block")
	}

	const token = "a-viewer-token-of-the-test"
	var replicas []*testServer
	for range 2 {
		replicas = append(replicas, startServer(t, map[string]string{"RISKCHART_TRUSTED_PROXIES": "127.0.0.1",
			"RISKCHART_CLIENT_RATE": "0", "RISKCHART_VIEWER_TOKENS": token}))
	}

	front := startNginx(t, nginx, func(dir, listen string) string {
		return fmt.Sprintf(`daemon off; master_process off; worker_processes 1; pid %[1]s/nginx.pid; error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path %[1]s/cb; proxy_temp_path %[1]s/pt; fastcgi_temp_path %[1]s/ft; uwsgi_temp_path %[1]s/ut; scgi_temp_path %[1]s/st;
    upstream riskchart { server %[2]s; server %[3]s; keepalive 64; }
    server {
        listen %[4]s;
        location / {%[5]s    }
    }
}
`, dir, strings.TrimPrefix(replicas[0].URL, "http://"), strings.TrimPrefix(replicas[1].URL, "http://"), listen, loc)
	})

	// Browsers asking for the position limits while the first replica stops.
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var mu sync.Mutex
	answers := map[string]int{}
	end := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for time.Now().Before(end) {
				req, _ := http.NewRequest(http.MethodPost, "http://"+front.addr+venueapi.PathPositionLimit, strings.NewReader(`{"contract_code":"BTC-USDT"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				res, err := client.Do(req)
				k := ""
				if err != nil {
					k = err.Error()
				} else {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					k = res.Status
				}
				mu.Lock()
				answers[k]++
				mu.Unlock()
			}
		})
	}
	time.Sleep(time.Second)
	if err := replicas[0].Stop(); err != nil { // SIGTERM
		t.Errorf("the stopped replica: %v", err)
	}
	wg.Wait()
	if len(answers) != 1 || answers["200 OK"] == 0 {
		t.Fatalf("answers during the stop: %v; nginx's log:\n%.1500s", answers, front.log())
	}
}

// nginxFront is an nginx process serving on addr, its files in dir.
type nginxFront struct {
	addr, dir string
}

func (f nginxFront) log() []byte {
	b, _ := os.ReadFile(filepath.Join(f.dir, "error.log"))
	return b
}

// startNginx runs nginx with the configuration conf writes for its
// directory and a loopback address to listen on, until the test ends. nginx
// cannot be asked for port 0 and say which it took, so a port is picked
// free and may be taken by another process before nginx binds it: then
// nginx cannot bind, and the one listening does not answer as nginx (its
// Server header); another port is tried.
func startNginx(t *testing.T, bin string, conf func(dir, listen string) string) nginxFront {
	t.Helper()
	var last error
	for range 5 {
		f := nginxFront{addr: freeAddr(t), dir: t.TempDir()}
		if err := os.WriteFile(filepath.Join(f.dir, "nginx.conf"), []byte(conf(f.dir, f.addr)), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-c", filepath.Join(f.dir, "nginx.conf"), "-p", f.dir)
		cmd.SysProcAttr = servertest.ChildAttr()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// exited is closed once nginx has exited, and waitErr says how: both
		// answersAsNginx and stop may wait for it.
		exited := make(chan struct{})
		var waitErr error
		go func() { waitErr = cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Kill()
			<-exited
		}
		if last = answersAsNginx(f.addr, exited, func() error { return waitErr }); last == nil {
			t.Cleanup(stop)
			return f
		}
		stop()
		last = fmt.Errorf("nginx on %s: %w; its log:\n%.1500s", f.addr, last, f.log())
	}
	t.Fatalf("nginx did not serve on any of five ports: %v", last)
	return nginxFront{}
}

// answersAsNginx waits, for up to 5 s, until the server on addr answers
// with nginx's Server header, and fails if nginx exits first (exited is
// closed, and how is then waitErr's).
func answersAsNginx(addr string, exited <-chan struct{}, waitErr func() error) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for deadline := time.Now().Add(5 * time.Second); ; {
		select {
		case <-exited:
			return fmt.Errorf("exited: %v", waitErr())
		default:
		}
		res, err := client.Get("http://" + addr + "/healthz")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if server := res.Header.Get("Server"); !strings.HasPrefix(server, "nginx") {
				return fmt.Errorf("the server listening there answers as %q, not nginx", server)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not answering within 5 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
