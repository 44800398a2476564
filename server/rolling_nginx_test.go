package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	conf := fmt.Sprintf(`daemon off; master_process off; worker_processes 1; pid %[1]s/nginx.pid; error_log %[1]s/error.log warn;
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
`, dir, strings.TrimPrefix(replicas[0].URL, "http://"), strings.TrimPrefix(replicas[1].URL, "http://"), front, loc)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ng := exec.Command(nginx, "-c", filepath.Join(dir, "nginx.conf"), "-p", dir)
	if err := ng.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { ng.Process.Kill(); ng.Wait() }()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c, err := net.Dial("tcp", front); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nginx did not listen within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}

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
				req, _ := http.NewRequest(http.MethodPost, "http://"+front+venueapi.PathPositionLimit, strings.NewReader(`{"contract_code":"BTC-USDT"}`))
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
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Fatalf("answers during the stop: %v; nginx's log:\n%.1500s", answers, log)
	}
}
