// The first script of every page of the app: it submits the server's lists
// on a choice made before the app runs, writes the server's times of day in
// the reader's zone before they are drawn, and starts app.wasm's download
// and compilation in a worker (web/app-compile.js), so that they run beside
// the page's first paint without taking its main thread. go-app's loader
// (web/loader-patch.js) takes the module from window.riskchartModule, or
// compiles app.wasm itself when this failed or was not started.
(() => {
  "use strict";
  // Storage the browser refuses (a frame on another site with third-party
  // storage blocked, cookies blocked for the site, a sandboxed frame) throws
  // as window.localStorage is read, or is null where storage is turned off.
  // Go reads it through syscall/js, whose reading of a property lets the
  // throw pass through app.wasm, past any recover, and leaves Go's run
  // stopped: go-app's sweep of its states, a second after the start, and
  // the app's keeping of the data it shows (app/browser/storage.go) ended
  // the app. Such a page gets a storage of its own, which keeps nothing
  // past the page.
  for (const name of ["localStorage", "sessionStorage"]) {
    try {
      if (window[name]) {
        continue;
      }
    } catch {}
    const items = new Map();
    const store = {
      get length() {
        return items.size;
      },
      key: (i) => [...items.keys()][i] ?? null,
      getItem: (k) => items.get(String(k)) ?? null,
      setItem: (k, v) => void items.set(String(k), String(v)),
      removeItem: (k) => void items.delete(String(k)),
      clear: () => items.clear(),
    };
    try {
      Object.defineProperty(window, name, { configurable: true, enumerable: true, value: store });
    } catch {}
  }
  // The pages' controls are forms to the view they name, so that a click
  // before the app runs navigates there; a list needs a submit. The server
  // marks its lists (data-submit="change"); the app's lists, which replace
  // them when it mounts, carry no mark and answer a choice in place.
  document.addEventListener("change", (e) => {
    const list = e.target;
    if (list instanceof HTMLSelectElement && list.dataset.submit === "change" && list.form) {
      list.form.requestSubmit();
    }
  });
  // The limits filter (#limit-filter) is the app's to apply: what it asks
  // is in no URL. Sent before the app runs, as a GET form to the page
  // itself, it would replace the page's query, and an embed's link, its
  // only access, with it; it is not sent. The app's own handler, on the
  // form, has prevented the sending before this one runs.
  document.addEventListener("submit", (e) => {
    if (e.target instanceof HTMLFormElement && e.target.id === "limit-filter") {
      e.preventDefault();
    }
  });
  // The panels' times of day. The server, not knowing the reader's zone,
  // writes them in UTC and names it; those of a view in the reader's zone
  // it marks (data-zone="local"), and they are written here in the
  // browser's zone, as the app writes them (clock, in
  // app/components/fetchstate.go). The observer's records come at the end
  // of each of the parser's tasks, before the part it parsed is drawn.
  const pad = (n) => String(n).padStart(2, "0");
  const localTimes = () => {
    for (const time of document.querySelectorAll('time[data-zone="local"]')) {
      const at = new Date(time.dateTime);
      const clock = pad(at.getHours()) + ":" + pad(at.getMinutes()) + ":" + pad(at.getSeconds());
      if (!isNaN(at) && time.textContent !== clock) {
        time.textContent = clock;
      }
    }
  };
  // A script of the page that fails to load (ECharts, async in the head)
  // is marked, and so is one that has run: web/chart-boot.js, which runs
  // later, would otherwise wait for a load that never comes, or that came
  // with something else than ECharts (a captive portal's page, a file cut
  // short). A load's events do not bubble; they pass the document in
  // capture (and the window too, but for load).
  const mark = (key) => (e) => {
    if (e.target instanceof HTMLScriptElement) {
      e.target.dataset[key] = "";
    }
  };
  document.addEventListener("error", mark("failed"), true);
  document.addEventListener("load", mark("ran"), true);
  const parsing = new MutationObserver(localTimes);
  parsing.observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", () => parsing.disconnect(), { once: true });
  if (!window.Worker || !window.WebAssembly?.compileStreaming) { // no WebAssembly: web/loader-patch.js says so
    return;
  }
  // When the page before this one in the tab was the app's, left as this
  // one was asked for (a reload, a link from one of the app's pages to
  // another), V8 most likely still holds app.wasm's compiled module in this
  // renderer: the worker then reads the file from the service worker's cache
  // itself, at a third of the cost of a fetch through the worker's route,
  // but without the browser's cache of compiled code, which only a fetch
  // reads and writes (web/app-compile.js). Any other start fetches: a
  // tab's first page, or a browser opened again with its tabs restored,
  // which takes the compiled code from that cache.
  const left = "riskchart:left";
  const reuse = (() => {
    try {
      const since = Number(sessionStorage.getItem(left)) - performance.timeOrigin; // ms from this navigation's start
      return !!navigator.serviceWorker?.controller && since > -1000 && since < 10000;
    } catch {
      return false; // no session storage
    }
  })();
  addEventListener("pagehide", () => {
    try {
      sessionStorage.setItem(left, String(Date.now()));
    } catch {}
  });
  let worker;
  try {
    worker = new Worker(new URL("app-compile.js", document.currentScript.src), { name: reuse ? "reuse" : "" }); // its sibling in web/
  } catch {
    return;
  }
  const module = new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      const { url, module, timing, error } = e.data;
      if (timing) {
        // For the start-up trace: the download, as the page's resource timing would show it.
        const at = (t) => t - performance.timeOrigin;
        performance.measure("riskchart:wasm-fetch", { start: at(timing.start), end: at(timing.end), detail: { transferSize: timing.transferSize, fromCache: timing.fromCache } });
        // When the worker had the module: the page may take it later, its main thread busy.
        performance.mark("riskchart:module-compiled", { startTime: at(timing.compiled) });
      }
      if (module) {
        performance.mark("riskchart:module"); // the compiled module is in the page
        // The worker stays a while, to write the browser's cache of the
        // compiled code when V8 offers it (web/app-compile.js): held here,
        // with the module, so that it is not collected before.
        resolve({ url, module, worker });
      } else {
        reject(new Error(error));
      }
    };
    worker.onerror = (e) => {
      worker.terminate();
      e.preventDefault();
      reject(new Error("compiling app.wasm in a worker failed: " + (e.message || "the worker did not start")));
    };
  });
  module.catch((err) => console.warn("riskchart:", err.message, "(the loader compiles it instead)"));
  window.riskchartModule = module;
})();
