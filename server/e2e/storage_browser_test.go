package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The app where the browser refuses it storage: a frame on another site
// with third-party storage blocked (Safari by default, Firefox's strict
// mode, Chrome's blocking of third-party cookies where storage is not
// partitioned), cookies blocked for the site, a sandboxed frame. The
// window's localStorage and sessionStorage then throw on being read, or
// are null (Firefox with storage turned off), or refuse every write
// (Safari's old private mode); the service worker does not register. The
// page must then work as it does with storage, keeping nothing.

// storageRefusals are the ways a browser refuses storage, each a script
// that runs in every document before the page's own.
var storageRefusals = []struct{ name, js string }{
	{"reading the storage throws", `(() => {
  window.storageRefused = true;
  for (const name of ["localStorage", "sessionStorage"]) {
    Object.defineProperty(window, name, {configurable: true, enumerable: true, get() { throw new DOMException("Failed to read the '" + name + "' property from 'Window': Access is denied for this document.", "SecurityError"); }});
  }
  if (navigator.serviceWorker) {
    navigator.serviceWorker.register = () => Promise.reject(new DOMException("denied", "SecurityError"));
  }
})()`},
	{"the storage is null", `(() => {
  window.storageRefused = true;
  for (const name of ["localStorage", "sessionStorage"]) {
    Object.defineProperty(window, name, {configurable: true, enumerable: true, get() { return null; }});
  }
})()`},
	{"every write is over the quota", `(() => {
  window.storageRefused = true;
  Storage.prototype.setItem = function () { throw new DOMException("The quota has been exceeded.", "QuotaExceededError"); };
})()`},
}

// jsStorageRefused is true in a document where a refusal ran.
const jsStorageRefused = `window.storageRefused === true`

// appAnswersPeriod clicks a period chip on a chart page whose app has run
// for a while (go-app's storage sweep runs a second after its start), and
// waits until the app, not a navigation, draws that period.
func appAnswersPeriod(t *testing.T, ctx context.Context, contract, period string) {
	t.Helper()
	waitFor(t, ctx, jsStorageRefused+" && "+jsAppRunning)
	time.Sleep(2 * time.Second)
	do(t, ctx, `window.sameDocument = true`)
	click(t, ctx, fmt.Sprintf(`[data-period=%q]`, period))
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	drawn := fmt.Sprintf(`document.querySelector(".kchart").dataset.drawn === %q`, contract+"|"+period)
	err := chromedp.Run(tctx, chromedp.Poll(`window.sameDocument !== true || `+drawn, nil, chromedp.WithPollingInterval(25*time.Millisecond)))
	time.Sleep(100 * time.Millisecond) // a navigation the click started has replaced the page
	if !evalJS[bool](t, ctx, `window.sameDocument === true`) {
		t.Fatalf("the click on %s loaded another page: the app no longer answers", period)
	}
	if err != nil {
		t.Fatalf("the app did not draw %s|%s: %v", contract, period, err)
	}
}

func TestStorageRefused(t *testing.T) {
	parent := newParentPage(t)
	s := startServer(t, map[string]string{"RISKCHART_FRAME_ANCESTORS": parent.srv.URL})
	// The embed's origin on another site than its parent's (localhost, not
	// 127.0.0.1); the frame in the parent's process, so that the page's
	// script for every document runs in it too.
	crossSite := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	inProcess := []chromedp.ExecAllocatorOption{
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "IsolateOrigins,site-per-process"),
	}
	open := func(t *testing.T, refusal string) context.Context {
		ctx, cancel := chromedp.NewContext(startChromium(t, "riskchart-storage-", inProcess...))
		t.Cleanup(cancel)
		if err := chromedp.Run(ctx, onEveryDocument(refusal)); err != nil {
			t.Fatal(err)
		}
		return ctx
	}

	for _, r := range storageRefusals {
		t.Run(r.name, func(t *testing.T) {
			t.Run("the chart page, and again after a reload", func(t *testing.T) {
				ctx := open(t, r.js)
				navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT&period=1min")
				appAnswersPeriod(t, ctx, "BTC-USDT", "5min")
				if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
					t.Fatal(err)
				}
				appAnswersPeriod(t, ctx, "BTC-USDT", "15min")
			})
		})
	}

	t.Run("a browser set to block every site's cookies and site data", func(t *testing.T) {
		profile := newProfile(t, "riskchart-nocookies-")
		if err := os.MkdirAll(filepath.Join(profile, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
		prefs := `{"profile": {"default_content_setting_values": {"cookies": 2}}}` // Settings, "Sites can't save data"
		if err := os.WriteFile(filepath.Join(profile, "Default", "Preferences"), []byte(prefs), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, _ := openChromium(t, profile, chromedp.Flag("disable-dev-shm-usage", true))
		navigate(t, ctx, s.URL+"/?contract_code=BTC-USDT&period=1min")
		// The browser's storage throws as it is read (the page then has a
		// stand-in), and a cookie set is not kept.
		if evalJS[bool](t, ctx, `(document.cookie = "probe=1", document.cookie !== "")`) {
			t.Fatal("the browser kept a cookie: its setting to keep no site data is not in force")
		}
		do(t, ctx, `window.storageRefused = true`)
		appAnswersPeriod(t, ctx, "BTC-USDT", "5min")
	})

	refusal := storageRefusals[0].js
	t.Run("a chart embed in a page of another site", func(t *testing.T) {
		ctx := open(t, refusal)
		parent.show(t, ctx, crossSite+"/embed/chart?contract_code=BTC-USDT&period=1min", "")
		waitFor(t, ctx, readyWhere(`m.data.contract_code === "BTC-USDT" && m.data.period === "1min"`))
		waitInFrame(t, ctx, jsStorageRefused+` && document.querySelector(".kchart").dataset.drawn === "BTC-USDT|1min"`)
		time.Sleep(2 * time.Second) // past go-app's storage sweep
		tell(t, ctx, crossSite, `{type: "riskchart:set", contract_code: "ETH-USDT", period: "5min"}`)
		waitFor(t, ctx, readyWhere(`m.data.contract_code === "ETH-USDT" && m.data.period === "5min"`))
		waitInFrame(t, ctx, `document.querySelector(".kchart").dataset.drawn === "ETH-USDT|5min"`)
	})

	t.Run("the tiers page's calculator", func(t *testing.T) {
		ctx := open(t, refusal)
		navigate(t, ctx, s.URL+"/tiers?contract_code=BTC-USDT")
		waitFor(t, ctx, `!document.getElementById("app-wasm-loader") && performance.getEntriesByName("riskchart:risk-first-data").length > 0`)
		time.Sleep(2 * time.Second) // past go-app's storage sweep
		typeInto(ctx, "calc-leverage", "10")
		typeInto(ctx, "calc-size", "10")
		waitFor(t, ctx, `!!document.getElementById("calc-margin")`)
	})
}
