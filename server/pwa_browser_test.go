package main

import (
	"context"
	"encoding/json"
	"image/png"
	"net/http"
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
