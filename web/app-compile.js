// The worker web/app-start.js starts with the page: it downloads and
// compiles app.wasm, the file beside it, and hands the page the module (a
// WebAssembly.Module goes through postMessage without a copy of its code),
// with the download's timing in the page's clock, since the page's own
// resource timing does not see a worker's fetch. The streaming compile's
// own reading of the body took the main thread: done here, it runs beside
// the first paint instead of after it (docs/performance.md).
//
// Once it has answered, the worker stays, idle, for the page's life: the
// browser's cache of compiled WebAssembly is written through the context
// that compiled the module. V8 offers the optimised code once its
// optimising compiler has rested (on a live chart, about half a minute in),
// and Chromium keeps it beside the file (the service worker's copy on a
// return visit); a later start in a new browser process takes the code
// from there instead of compiling app.wasm again. A worker that had closed
// itself left nothing to write it (docs/performance.md, "The browser's
// cache of compiled code").
"use strict";
const url = new URL("app.wasm", self.location).href;
// At a low priority: the page's own scripts and first data come first.
WebAssembly.compileStreaming(fetch(url, { priority: "low" })).then(
  (module) => {
    const r = performance.getEntriesByName(url, "resource")[0];
    const at = (t) => t + performance.timeOrigin; // the page turns it back into its own clock
    const timing = r && { start: at(r.startTime), end: at(r.responseEnd), compiled: at(performance.now()), transferSize: r.transferSize };
    self.postMessage({ url, module, timing });
  },
  (err) => {
    self.postMessage({ url, error: String(err) });
    self.close();
  },
);
