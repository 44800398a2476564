package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
)

// waitInDemoFrame waits until js is true inside the demo page's iframe id.
func waitInDemoFrame(t *testing.T, ctx context.Context, id, js string) {
	t.Helper()
	var frames []*cdp.Node
	if err := chromedp.Run(ctx, chromedp.Nodes("iframe#"+id, &frames, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(js, nil, chromedp.WithPollingInFrame(frames[0]), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("inside #%s, waiting for %s: %v", id, js, err)
	}
}

// Under `make run` (the embedded sandbox, no embed settings) the embed demo
// shows its private panels with no link to add and asks for nothing the
// server does not serve; with a real venue it gets no link of the server's.
func TestTheEmbedDemoWorksOutOfTheBoxOnlyWithTheSandbox(t *testing.T) {
	const tiersShown = `document.querySelectorAll("#tier-table tbody tr").length > 0 && !document.getElementById("risk-noaccess")`
	const limitsShown = `document.querySelectorAll("#limits-table tbody tr").length > 0 && !document.getElementById("risk-noaccess")`
	const noAccess = `!!document.getElementById("risk-noaccess")`

	t.Run("the embedded sandbox", func(t *testing.T) {
		s := startServer(t, nil)
		ctx := newBrowser(t)
		var mu sync.Mutex
		var failed []string
		chromedp.ListenTarget(ctx, func(ev any) {
			if e, ok := ev.(*network.EventResponseReceived); ok && e.Response.Status >= 400 {
				mu.Lock()
				failed = append(failed, e.Response.URL)
				mu.Unlock()
			}
		})
		if err := chromedp.Run(ctx, network.Enable(), chromedp.Navigate(s.URL+"/embed/demo")); err != nil {
			t.Fatal(err)
		}
		waitInDemoFrame(t, ctx, "demo-tiers", tiersShown)
		waitInDemoFrame(t, ctx, "demo-limits", limitsShown)
		waitFor(t, ctx, `!document.getElementById("demo-own-link").hidden`)
		mu.Lock()
		defer mu.Unlock()
		if len(failed) > 0 {
			t.Fatalf("the demo page's requests failed: %s", strings.Join(failed, ", "))
		}
	})

	t.Run("a real venue", func(t *testing.T) {
		venueURL, _ := sandboxtest.Start(t, sandbox.Config{})
		s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venueURL})
		ctx := newBrowser(t)
		if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/embed/demo")); err != nil {
			t.Fatal(err)
		}
		waitInDemoFrame(t, ctx, "demo-tiers", noAccess)
		waitInDemoFrame(t, ctx, "demo-limits", noAccess)
		if src := evalJS[string](t, ctx, `document.getElementById("demo-tiers").src`); strings.Contains(src, "embed=") {
			t.Fatalf("with a real venue the demo's panel got a link: %s", src)
		}
		if !evalJS[bool](t, ctx, `document.getElementById("demo-own-link").hidden`) {
			t.Fatal("with a real venue the demo says the server signed a link")
		}
	})
}
