package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNginxDurationIsWrittenInNginxUnits(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{time.Second, "1s"},
		{2 * time.Minute, "120s"},
		{1500 * time.Millisecond, "1500ms"}, // nginx takes no fractions
		{250 * time.Millisecond, "250ms"},
		{time.Microsecond, "1ms"}, // 0ms would mean "not cached"
	} {
		if got := nginxDuration(tc.in); got != tc.want {
			t.Errorf("nginxDuration(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDeployStartsItsOwnServersSoItRefusesGatewayAndVenue(t *testing.T) {
	for _, args := range [][]string{
		{"-deploy", "-gateway", "http://127.0.0.1:8080", "-venue", "http://127.0.0.1:9000"},
		{"-deploy", "-gateway", "http://127.0.0.1:8080"},
	} {
		if _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), "-deploy") {
			t.Errorf("parseFlags(%q) = %v, want an error naming -deploy", args, err)
		}
	}
	if _, err := parseFlags([]string{"-deploy", "-bin", "bin/riskchart"}); err != nil {
		t.Errorf("parseFlags of a plain -deploy: %v", err)
	}
}

// The configuration must say what the bench claims to measure, and be one
// nginx accepts: nginx -t checks it when nginx is installed.
func TestNginxConfigurationIsAnOperatorsAndNginxAcceptsIt(t *testing.T) {
	dir := t.TempDir()
	conf := nginxConfig{Workers: "auto", Dir: dir, Log: filepath.Join(dir, "nginx.log"),
		Replicas: []string{"127.0.0.1:1001", "127.0.0.1:1002"}, Venue: "127.0.0.1:1003",
		Balancer: "127.0.0.1:1004", OneReplica: "127.0.0.1:1005", Cache: "127.0.0.1:1006",
		CacheGzipped: "127.0.0.1:1007", Compressor: "127.0.0.1:1008", Refresh: "1s", User: nginxUser()}
	path := filepath.Join(dir, "nginx.conf")
	if err := conf.write(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"daemon off;", "master_process on;", "worker_processes auto;", "pid " + dir + "/nginx.pid;",
		"proxy_temp_path " + dir + "/proxy_temp;", "access_log off;",
		"server 127.0.0.1:1001;", "server 127.0.0.1:1002;", "keepalive 64;", "proxy_http_version 1.1;",
		`proxy_set_header Connection "";`, "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
		"proxy_next_upstream error timeout non_idempotent;",
		"gzip on;", "gzip_types application/json;",
		"proxy_cache_valid 200 1s;", "proxy_cache_lock on;", "proxy_cache_use_stale updating;",
		"listen 127.0.0.1:1004;", "listen 127.0.0.1:1005;", "listen 127.0.0.1:1006;",
		"listen 127.0.0.1:1007;", "listen 127.0.0.1:1008;", "server 127.0.0.1:1008;", "$http_accept_encoding;",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("nginx.conf lacks %q:\n%s", want, text)
		}
	}
	if (conf.User != "") != strings.Contains(text, "\nuser "+conf.User+";") {
		t.Errorf("nginx.conf's user is not %q:\n%s", conf.User, text)
	}

	bin, err := lookTool("-nginx", "nginx", "")
	if err != nil {
		msg := "nginx is not installed (make nginx): the configuration was not checked by nginx -t"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg) // CI installs it: missing there, it is a failure, not a skip
		}
		t.Skip(msg)
	}
	out, err := exec.Command(bin, "-t", "-p", dir+"/", "-c", path, "-e", conf.Log).CombinedOutput()
	if err != nil {
		t.Errorf("nginx -t refused the configuration: %v\n%s\n%s", err, out, text)
	}
}

func TestPooledRunsAddTheirCountsAndTimesAndMergeTheirLatencies(t *testing.T) {
	a := result{sent: 10, done: 10, errors: 1, elapsed: time.Second, venueCalls: 2,
		lat: []time.Duration{1, 3, 5}}
	b := result{sent: 30, done: 30, elapsed: 3 * time.Second, venueCalls: 1,
		lat: []time.Duration{2, 4}}
	p := a.plus(b)
	if p.sent != 40 || p.done != 40 || p.errors != 1 || p.elapsed != 4*time.Second || p.venueCalls != 3 {
		t.Errorf("pooled counts = %+v, want sent 40, done 40, errors 1, elapsed 4s, venue calls 3", p)
	}
	if p.rps() != 10 {
		t.Errorf("pooled rps = %v, want 10: all requests over all the time, not the mean of 10 and 10", p.rps())
	}
	if want := []time.Duration{1, 2, 3, 4, 5}; !slices.Equal(p.lat, want) {
		t.Errorf("pooled latencies = %v, want %v, sorted", p.lat, want)
	}
	if !slices.Equal(a.lat, []time.Duration{1, 3, 5}) {
		t.Errorf("pooling changed the first run's latencies: %v", a.lat)
	}
	if (result{}).plus(a).quantile(50) != 3 {
		t.Errorf("pooling with nothing changed the median")
	}
}

// The deploy run waits for redis-server's port before its client pings it,
// so that go-redis has no refused dial to log in the middle of the report.
func TestTCPOKAnswersOnlyOnceThePortAccepts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := tcpOK(context.Background(), addr); err != nil {
		t.Errorf("tcpOK(%s), listening: %v, want nil", addr, err)
	}
	l.Close()
	if err := tcpOK(context.Background(), addr); err == nil {
		t.Errorf("tcpOK(%s), closed: nil, want the refusal", addr)
	}
}
