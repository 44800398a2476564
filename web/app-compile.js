// The worker web/app-start.js starts with the page: it downloads and
// compiles app.wasm, the file beside it, and hands the page the module (a
// WebAssembly.Module goes through postMessage without a copy of its code),
// with the download's timing in the page's clock, since the page's own
// resource timing does not see a worker's fetch. The streaming compile's
// own reading of the body took the main thread: done here, it runs beside
// the first paint instead of after it (docs/startup.md, "Compiling in a
// worker").
//
// When the page names this worker "reuse" (web/app-start.js: the page
// before it in the tab was the app's, so V8 most likely still holds the
// compiled module), the compile reads app.wasm from the service worker's
// cache itself: a fetch through that worker's static route took two to
// three times as long, most of it the browser's fresh memory for the
// body's way to the page (docs/startup.md, "Reading app.wasm from the
// cache"). Such a read has no part in the browser's cache of compiled code,
// so every other start fetches. A miss in the cache fetches too.
//
// Once it has answered from a fetch, the worker stays, idle, for three
// minutes: the browser's cache of compiled WebAssembly is written through
// the context that compiled the module. V8 offers the optimised code once
// its optimising compiler has rested (on a live chart, about half a minute
// in), and Chromium keeps it beside the file (the service worker's copy on
// a return visit); a later start in a new browser process takes the code
// from there instead of compiling app.wasm again. A worker that had closed
// itself at once left nothing to write it (docs/startup.md, "The
// browser's cache of compiled code"). It does not stay longer: an idle
// worker's heap keeps the compile's garbage, about 20 MB, which its
// collector does not come back for. Having read the cache, it has nothing
// to write and closes 10 s later, once the page's start is over: freeing
// its heap takes a core the first paint may still want.
"use strict";
const url = new URL("app.wasm", self.location).href;
const stay = 180_000; // ms after a fetch's answer, for V8's offer of its code
const settle = 10_000; // ms after a cache read's answer: its end frees the heap, not during the start

// compile reads app.wasm from the cache when the page said "reuse" and the
// cache has it, fetches it otherwise, and compiles it as it streams.
async function compile() {
  const asked = performance.now();
  const hit = self.name === "reuse" ? await self.caches?.match(url).catch(() => undefined) : undefined;
  const fromCache = !!hit?.ok;
  // At a low priority when fetched: the page's own scripts and first data come first.
  const module = await WebAssembly.compileStreaming(fromCache ? hit : fetch(url, { priority: "low" }));
  const now = performance.now();
  // Read from the cache, the body's end is the compile's: the two run as one.
  const r = fromCache ? { startTime: asked, responseEnd: now, transferSize: 0 } : performance.getEntriesByName(url, "resource")[0];
  const at = (t) => t + performance.timeOrigin; // the page turns it back into its own clock
  const timing = r && { start: at(r.startTime), end: at(r.responseEnd), compiled: at(now), transferSize: r.transferSize, fromCache };
  return { module, timing, fromCache };
}

compile().then(
  ({ module, timing, fromCache }) => {
    self.postMessage({ url, module, timing });
    setTimeout(() => self.close(), fromCache ? settle : stay);
  },
  (err) => {
    self.postMessage({ url, error: String(err) });
    self.close();
  },
);
