// Package cmdline holds what the server and the build tools under
// server/cmd do alike with their command lines.
package cmdline

import (
	"errors"
	"flag"
)

// Result is what a command's whole program returns for err, the error that
// stopped it: nil when err is only the usage asked for (-h, -help), which
// the flag set has printed, since asking for help is no failure; err
// otherwise.
func Result(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
