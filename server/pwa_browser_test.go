package main

import (
	"context"
	"encoding/json"
	"image/png"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestTheManifestIsValidAndItsIconsLoad(t *testing.T) {
	s := startServer(t, nil)
	res, err := http.Get(s.URL + "/manifest.webmanifest")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, ShortName, Description, StartURL, Display, ThemeColor, BackgroundColor string
		Icons                                                                        []struct{ Src, Type, Sizes, Purpose string }
	}
	var raw map[string]json.RawMessage
	json.NewDecoder(res.Body).Decode(&raw)
	res.Body.Close()
	for k, dst := range map[string]*string{"name": &m.Name, "short_name": &m.ShortName, "description": &m.Description,
		"start_url": &m.StartURL, "display": &m.Display, "theme_color": &m.ThemeColor, "background_color": &m.BackgroundColor} {
		if err := json.Unmarshal(raw[k], dst); err != nil || *dst == "" {
			t.Errorf("manifest %s missing", k)
		}
	}
	json.Unmarshal(raw["icons"], &m.Icons)
	if m.Display != "standalone" {
		t.Errorf("display %q", m.Display)
	}
	sizes := map[string]bool{}
	for _, ic := range m.Icons {
		if ic.Type != "image/png" {
			continue
		}
		res, err := http.Get(s.URL + ic.Src)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("icon %s: %v %v", ic.Src, err, res)
		}
		img, err := png.Decode(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("icon %s is not a PNG: %v", ic.Src, err)
		}
		if got := img.Bounds().Dx(); ic.Sizes != fmtSize(got) {
			t.Errorf("icon %s is %d px, the manifest says %s", ic.Src, got, ic.Sizes)
		}
		sizes[ic.Sizes+"/"+ic.Purpose] = true
	}
	for _, want := range []string{"192x192/", "512x512/", "512x512/maskable"} {
		if !sizes[want] {
			t.Errorf("no %s icon in %v", want, sizes)
		}
	}
}

func fmtSize(px int) string { return itoa(int64(px)) + "x" + itoa(int64(px)) }

func TestOfflineReloadDrawsTheLastChartMarked(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=ETH-USDT&period=5min")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]')`)
	if evalJS[bool](t, ctx, `!!document.getElementById("update-banner")`) {
		t.Fatal("a first visit offers an update")
	}
	// The worker installed on the first visit controls the second.
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `!!navigator.serviceWorker.controller`)
	// The app shell is precached once the worker is active.
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(`caches.keys().then(k => k.length > 0)`, nil, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let the precache finish writing
	s.Stop(t)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("reload with the server stopped: %v", err)
	}
	waitDrawn(t, ctx, "ETH-USDT|5min")
	waitFor(t, ctx, `(document.getElementById("offline-mark") || {}).textContent?.startsWith("Offline, as of")`)
	waitFor(t, ctx, `(document.getElementById("risk-offline") || {}).textContent?.startsWith("Offline, as of") && document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]')`)
	screenshot(t, ctx, "pwa-offline")
}

func TestANewDeploymentIsOfferedAsAReload(t *testing.T) {
	// Two deployments on the same origin: the second differs in style.css,
	// which is part of the version the service worker is keyed by.
	root := t.TempDir()
	copyTree(t, "..", root, "wasm_exec.js", "web")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"RISKCHART_ADDR": addr, "RISKCHART_ROOT": root}
	first := startServer(t, env)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(first.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	waitFor(t, ctx, `navigator.serviceWorker.getRegistration().then(r => !!r && !!r.active)`)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!navigator.serviceWorker.controller`)
	if evalJS[bool](t, ctx, `!!document.getElementById("update-banner")`) {
		t.Fatal("an update is offered before any new deployment")
	}
	first.Stop(t)
	css := filepath.Join(root, "web", "style.css")
	b, _ := os.ReadFile(css)
	os.WriteFile(css, append(b, []byte("\n/* deployment 2 */\n")...), 0o644)
	startServer(t, env)
	if err := chromedp.Run(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.getElementById("update-banner")`)
	screenshot(t, ctx, "pwa-update")
}

// copyTree copies the named files and folders of src into dst.
func copyTree(t *testing.T, src, dst string, names ...string) {
	t.Helper()
	for _, n := range names {
		err := filepath.WalkDir(filepath.Join(src, n), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatalf("copying %s: %v", n, err)
		}
	}
}

func TestTheInstallButtonAppearsWhenTheBrowserOffersInstallation(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx, "BTC-USDT|1min")
	// Offer installation as the browser does (headless Chromium may or may
	// not offer it itself); the button must then prompt with this offer.
	chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const e = new Event("beforeinstallprompt");
		e.prompt = () => { window.prompted = true; };
		e.userChoice = Promise.resolve({outcome: "dismissed"});
		window.dispatchEvent(e);
	})()`, nil))
	waitFor(t, ctx, `!!document.getElementById("install")`)
	chromedp.Run(ctx, chromedp.Click("#install", chromedp.ByQuery))
	waitFor(t, ctx, `window.prompted === true`)
}
