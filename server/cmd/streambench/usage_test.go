package main

import (
	"io"
	"testing"

	"github.com/riskchart/riskchart/server/internal/cmdtest"
)

func TestAskingForTheUsageIsNotAFailure(t *testing.T) {
	cmdtest.Usage(t, func(args []string) error { return run(t.Context(), args, io.Discard) })
}
