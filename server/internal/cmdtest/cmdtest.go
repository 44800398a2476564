// Package cmdtest holds what the tests of the commands under server/cmd
// check alike.
package cmdtest

import (
	"strings"
	"testing"
)

// Usage checks that run, a command's whole program given its arguments,
// takes -h and -help as a request for its usage, which is no failure, and
// fails on a flag the command does not have, naming it.
func Usage(t *testing.T, run func(args []string) error) {
	t.Helper()
	for _, args := range [][]string{{"-h"}, {"-help"}} {
		if err := run(args); err != nil {
			t.Errorf("run %q: %v, want nil: the usage was asked for", args, err)
		}
	}
	args := []string{"-no-such-flag"}
	if err := run(args); err == nil || !strings.Contains(err.Error(), "-no-such-flag") {
		t.Errorf("run %q: %v, want an error naming the flag", args, err)
	}
}
