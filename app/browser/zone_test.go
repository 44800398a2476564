//go:build !js

package browser

import (
	"testing"
	"time"
)

// Natively (the server's prerender, tests) the offset is time.Local's.
func TestUTCOffsetNativelyIsTimeLocals(t *testing.T) {
	for _, sec := range []int64{0, 1774746000 - 1, 1774746000, 1792890000, 2200000000} {
		if _, want := time.Unix(sec, 0).In(time.Local).Zone(); UTCOffset(sec) != want {
			t.Errorf("UTCOffset(%d) = %d, want %d", sec, UTCOffset(sec), want)
		}
	}
}
