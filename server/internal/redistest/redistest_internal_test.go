package redistest

import (
	"os/exec"
	"strings"
	"testing"
)

// A port picked free may be taken, before redis-server binds it, by
// another test's redis-server, which answers PING as well: run must not
// take that server for the one it started, which exits unable to bind.
func TestRunRefusesAPortAnotherServerHolds(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip(Missing)
	}
	for _, tc := range []struct {
		name         string
		other, extra []string
	}{
		{"another server", nil, nil},
		{"another server with a password", []string{"--requirepass", "theirs"}, nil},
		{"another server, both with a password", []string{"--requirepass", "theirs"}, []string{"--requirepass", "ours"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := Start(t, tc.other...)
			s := &Server{t: t, bin: bin, dir: t.TempDir(), args: tc.extra}
			t.Cleanup(s.stop)
			err := s.run(other.port)
			if err == nil || !strings.Contains(err.Error(), "held by another server") {
				t.Fatalf("run on port %d, which another redis-server holds: %v; want it refused", other.port, err)
			}
		})
	}
}

// Its own server, with or without a password, is taken.
func TestStartTakesItsOwnServer(t *testing.T) {
	for _, extra := range [][]string{nil, {"--requirepass", "ours"}} {
		s := Start(t, extra...)
		if s.current() == nil {
			t.Fatalf("Start %q: no server running", extra)
		}
	}
}
