// Riskchart's changes to go-app's loader. The server puts this file before
// go-app's app.js, in the same script (server/internal/bundle), and checks
// at start-up that app.js still has the two functions it replaces.
//
// No "use strict" here: first in the script, it would apply to go-app's code.
//
// On a two-core machine, running Go and installing the service worker
// alongside the chart's first paint made that paint three times slower than
// a plain page's; so:
//   - app.wasm is fetched directly when app.js runs (the page preloads it at
//     a low priority, pages/preload.go) and compiled as it arrives, but Go
//     starts only once the first paint (web/chart-boot.js, which runs before
//     app.js) has drawn or given up, or after 1.5 s. go-app's own download
//     wraps the file in a new Response to report progress, which hides its
//     URL from the browser: the compiled module would never be cached;
//   - the service worker registers once the app has drawn its chart, or 3 s
//     after this script ran: on a first visit its install downloads and
//     stores every file of the app.
//
// go-app's function declarations are hoisted over the whole script, so the
// assignments below, which run before go-app's first statement, replace them
// for go-app's own calls.

// riskchartOnce calls f once: on the window's event, or after ms, whichever
// comes first.
function riskchartOnce(event, ms, f) {
  let done = false;
  const run = () => {
    if (!done) {
      done = true;
      f();
    }
  };
  window.addEventListener(event, run, { once: true });
  setTimeout(run, ms);
}

// riskchartAfterFirstPaint returns start(), called once the first paint has
// settled (at once when there is none, or it already has).
function riskchartAfterFirstPaint(start) {
  const boot = window.riskchartBoot;
  if (!boot || boot.settled) {
    return start();
  }
  return new Promise((resolve) => riskchartOnce("riskchart:first-paint", 1500, () => resolve(start())));
}

// riskchartAfterAppDrawn calls f once the app has drawn its chart, or after 3 s.
function riskchartAfterAppDrawn(f) {
  riskchartOnce("riskchart:app-drawn", 3000, f);
}

// riskchartOnVisible calls f each time the page comes back into view. Go is
// not woken when the page is hidden: a page being left for another ran its
// Go scheduler during the next one's commit.
function riskchartOnVisible(f) {
  const listener = () => {
    if (document.visibilityState === "visible") {
      f();
    }
  };
  document.addEventListener("visibilitychange", listener);
  return listener;
}

// go-app's progress reporting is dropped: the loader label has no {progress}.
fetchWithProgress = (url) => fetch(url);
// go-app runs Go as soon as its module is instantiated; the instantiation it
// awaits resolves once the first paint has settled. Compiling ahead of the
// first paint, from the page's start, was tried: Go ran 0–20 ms sooner, the
// first candles came 20–50 % later (docs/performance.md).
const riskchartInstantiateStreaming = WebAssembly.instantiateStreaming;
if (riskchartInstantiateStreaming) {
  WebAssembly.instantiateStreaming = (source, imports) =>
    riskchartInstantiateStreaming(source, imports).then((r) => riskchartAfterFirstPaint(() => r));
}

const riskchartRegisterWorker = goappInitServiceWorker;
goappInitServiceWorker = () => riskchartAfterAppDrawn(riskchartRegisterWorker);
