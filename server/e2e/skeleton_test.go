package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// The walking skeleton, end to end: curl's view of the KLine path, and a
// browser drawing the chart from it.

func TestKLinePathAnswersTheVenueEnvelopeWith150AlignedCandles(t *testing.T) {
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/sapi/v1/market/history/kline?contract_code=BTC-USDT&period=1min")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env venueapi.KLineEnvelope
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
	if env.Status != "ok" || env.Ch != "market.BTC-USDT.kline.1min" {
		t.Fatalf("status %q ch %q, want ok and market.BTC-USDT.kline.1min", env.Status, env.Ch)
	}
	if len(env.Data) != 150 {
		t.Fatalf("got %d candles, want 150", len(env.Data))
	}
	for i, c := range env.Data {
		if c.ID%60 != 0 {
			t.Errorf("candle %d id %d is not minute-aligned", i, c.ID)
		}
		if i > 0 && c.ID != env.Data[i-1].ID+60 {
			t.Errorf("candle %d id %d does not follow %d by one minute", i, c.ID, env.Data[i-1].ID)
		}
	}
}

func TestWasmExecGlueMatchesTheToolchain(t *testing.T) {
	ours, err := os.ReadFile(filepath.Join(repoRoot, "wasm_exec.js"))
	if err != nil {
		t.Fatalf("reading wasm_exec.js (make build copies it): %v", err)
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	theirs, err := os.ReadFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatalf("reading the toolchain's wasm_exec.js: %v", err)
	}
	if string(ours) != string(theirs) {
		t.Fatal("wasm_exec.js differs from the toolchain's: run make build")
	}
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/wasm_exec.js")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	served, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if string(served) != string(ours) {
		t.Fatal("the server does not serve the toolchain's wasm_exec.js")
	}
}

func TestBrowserDrawsTheBTCChartFromTheKLinePath(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	start := time.Now()
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatalf("opening %s: %v", s.URL, err)
	}
	n := waitForCandles(t, ctx, 60*time.Second)
	drawn := time.Since(start)
	t.Logf("navigation to drawn chart: %s (%d candles)", drawn.Round(time.Millisecond), n)
	// The chart is live: when a minute begins while the page loads, the
	// pushed candle of that minute follows the 300 asked for.
	newMinute := time.Now().Truncate(time.Minute).After(start.Truncate(time.Minute))
	if n != 300 && (n != 301 || !newMinute) {
		t.Errorf("chart holds %d candles, want the 300 the page asked for (301 once a new minute has begun: %v)", n, newMinute)
	}
	screenshot(t, ctx, "skeleton-chart")
	line := fmt.Sprintf("skeleton navigation-to-drawn-chart %s candles %d\n", drawn.Round(time.Millisecond), n)
	_ = os.WriteFile(filepath.Join(artifactDir(t), "skeleton-timing.txt"), []byte(line), 0o644)
}

// TestPrerenderedPagesClaimNoFailure reads each page as the server
// prerenders it, which a person sees until app.wasm runs (and a crawler
// for good): the server does not fetch the venue's data for the page, so
// the page must show its data as loading, never a fetch that failed.
func TestPrerenderedPagesClaimNoFailure(t *testing.T) {
	s := startServer(t, nil)
	for _, path := range []string{"/", "/?contract_code=ETH-USDT&period=1day", "/tiers?contract_code=BTC-USDT", "/limits?contract_code=BTC-USDT",
		"/embed/chart?contract_code=BTC-USDT", "/embed/tiers?contract_code=BTC-USDT", "/embed/limits?contract_code=BTC-USDT"} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, res.StatusCode, err)
		}
		page := strings.ToLower(string(body))
		for _, claim := range []string{"only the browser fetches", "failed"} {
			if i := strings.Index(page, claim); i >= 0 {
				t.Errorf("%s is prerendered with %q: …%s…", path, claim, page[max(0, i-120):min(len(page), i+60)])
			}
		}
	}
}
