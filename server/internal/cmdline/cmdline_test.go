package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"testing"
)

func TestOnlyTheUsageAskedForIsNoFailure(t *testing.T) {
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	other := errors.New("want one directory")
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"no error", nil, nil},
		{"-h", fs.Parse([]string{"-h"}), nil},
		{"-h, wrapped", fmt.Errorf("embed-link: %w", flag.ErrHelp), nil},
		{"a flag the command does not have", fs.Parse([]string{"-nope"}), fs.Parse([]string{"-nope"})},
		{"any other error", other, other},
	} {
		got := Result(tt.err)
		if (got == nil) != (tt.want == nil) || got != nil && got.Error() != tt.want.Error() {
			t.Errorf("%s: Result(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
