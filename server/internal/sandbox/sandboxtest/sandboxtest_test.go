package sandboxtest_test

import (
	"net/http"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

func TestStart_ServesOnLoopbackUntilTheTestEnds(t *testing.T) {
	var base string
	t.Run("a test using the sandbox", func(t *testing.T) {
		var sb *sandbox.Sandbox
		base, sb = sandboxtest.Start(t, sandbox.Config{})
		res, err := http.Get(base + venueapi.PathKLine + "?contract_code=BTC-USDT&period=1min&size=1")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%v %v", res, err)
		}
		res.Body.Close()
		if sb.Received(venueapi.PathKLine) != 1 {
			t.Fatal("the sandbox returned is not the one serving")
		}
	})
	if _, err := http.Get(base + venueapi.PathKLine); err == nil {
		t.Fatal("still serving after the test ended")
	}
}
