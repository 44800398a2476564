// Package redistest starts real redis-server processes for tests: one per
// call, on a free loopback port, in a temporary directory, persisting
// nothing. A test can kill, restart, pause and resume it to see what its
// code does when Redis fails.
package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/servertest"
)

// Missing is what a test says when redis-server cannot be found.
const Missing = "redis-server is not on PATH: install it with `make redis-server` (Debian's redis-server package)"

const (
	startWait = 10 * time.Second // for the process to answer PING
	stopWait  = 5 * time.Second  // for SIGTERM before SIGKILL
	attempts  = 5                // ports tried when another process takes the one picked
)

// Server is one redis-server process. Its methods fail the test that
// started it; they are safe to call from that test's goroutine only.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	args []string

	mu   sync.Mutex
	proc *process
	out  output // every run's output, shown when the test fails
}

// process is one run of the server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	err  error         // its exit status, once done is closed
}

// Start starts a redis-server for t, with extra arguments after Riskchart's
// (for example "--requirepass", "secret"), and stops it when t ends.
// Without redis-server on PATH it skips t, or fails it when CI=true.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(Missing)
		}
		t.Skip(Missing)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), args: extra}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("redis-server output:\n%s", s.out.String())
		}
	})
	var last error
	for range attempts {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: picking a port: %v", err)
		}
		if last = s.run(port); last == nil {
			s.port = port
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", last)
	return nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL is the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *Server) Kill() {
	s.t.Helper()
	p := s.current()
	if p == nil {
		s.t.Fatal("redistest: Kill: the server is not running")
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a paused process cannot die otherwise
	_ = p.cmd.Process.Kill()
	<-p.done
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
}

// Restart starts a killed server again, on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	if s.current() != nil {
		s.t.Fatal("redistest: Restart: the server is still running")
	}
	if err := s.run(s.port); err != nil {
		s.t.Fatalf("redistest: restarting redis-server on port %d: %v", s.port, err)
	}
}

// Pause stops the process (SIGSTOP): connections stay open and nothing
// answers, as with a server that hangs.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused process (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.t.Helper()
	p := s.current()
	if p == nil {
		s.t.Fatalf("redistest: %v: the server is not running", sig)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: %v: %v", sig, err)
	}
}

func (s *Server) current() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// run starts the process on port and waits until it answers PING.
func (s *Server) run(port int) error {
	args := append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--logfile", "", "--loglevel", "warning",
	}, s.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = servertest.ChildAttr()
	cmd.Stdout = &s.out
	cmd.Stderr = &s.out
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(startWait)
	for err := ping(addr); err != nil; err = ping(addr) {
		select {
		case <-p.done:
			// Most often the port was taken between picking and binding.
			return fmt.Errorf("redis-server on port %d exited: %v", port, p.err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-p.done
			return fmt.Errorf("redis-server on port %d did not answer PING within %s: %v", port, startWait, err)
		}
	}
	// A PING answered says only that a server holds the port: another
	// process may have taken it between picking and binding (or, for a
	// restart, while it was free), and this one then exits unable to bind.
	if pid, err := processID(addr, s.password()); err != nil || pid != cmd.Process.Pid {
		_ = cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("port %d is held by another server than the redis-server started (process %d, now ended: %v): asked its process, it answered %d, %v",
			port, cmd.Process.Pid, p.err, pid, err)
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return nil
}

// password is the one the extra arguments set, if any.
func (s *Server) password() string {
	for i, a := range s.args {
		if a == "--requirepass" && i+1 < len(s.args) {
			return s.args[i+1]
		}
	}
	return ""
}

// processID asks the server at addr which process it is, logging in with
// password first when there is one.
func processID(addr, password string) (int, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	r := bufio.NewReader(c)
	if password != "" {
		if _, err := c.Write(command("AUTH", password)); err != nil {
			return 0, err
		}
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			return 0, fmt.Errorf("AUTH answered %q: %v", line, err)
		}
	}
	if _, err := c.Write(command("INFO", "server")); err != nil {
		return 0, err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "$"), "\r\n"))
	if !strings.HasPrefix(line, "$") || err != nil || n < 0 {
		return 0, fmt.Errorf("INFO answered %q", line)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, err
	}
	for l := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO server names no process_id")
}

// command is args in the protocol's array form, which any byte of an
// argument may be in.
func command(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	return b
}

// stop ends the server gently, then by force.
func (s *Server) stop() {
	p := s.current()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopWait):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
}

// output collects a process's output; the process writes it from its own
// goroutines.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(b)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// freePort is a loopback port nobody listened on a moment ago: redis-server
// cannot be asked for port 0 and say which it took.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping sends PING in the protocol's inline form and expects +PONG, or the
// refusal of a server that wants a password first: either way it is up.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" && !strings.HasPrefix(line, "-NOAUTH") {
		return errors.New("answered " + strconv.Quote(line))
	}
	return nil
}
