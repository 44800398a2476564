package sandboxtest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

func TestNetwork_CarriesHTTPFromTheAddressItNamesUntilTheListenerCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := sandboxtest.NewNetwork()
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Hour) // on the bubble's clock: the network must not keep it from running
			io.WriteString(w, r.RemoteAddr)
		}))
		srv.Listener = n.Listen()
		srv.Start()
		tr := n.Transport("127.0.0.7")
		client := &http.Client{Transport: tr}
		res, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if host, _, _ := strings.Cut(string(b), ":"); host != "127.0.0.7" {
			t.Fatalf("the server saw the client at %s, want 127.0.0.7", b)
		}
		tr.CloseIdleConnections()
		srv.Close()
		if _, err := client.Get(srv.URL); err == nil {
			t.Fatal("a closed listener still answers")
		}
	})
}
