// Start-up marks of the start-up benchmarks (startbench_test.go), run in
// every page before its own scripts. They time what the pages do not mark
// themselves: WebAssembly's streaming compile and instantiation (wrapped
// once, here), go-app's loader leaving the page (go.run has returned: the Go
// runtime, package init and main up to its first wait), and the first row
// of the risk tiers on show, prerendered or drawn by the app.
(() => {
  const mark = (name) => {
    if (!performance.getEntriesByName(name, "mark").length) performance.mark(name);
  };
  for (const f of ["instantiateStreaming", "compileStreaming", "instantiate"]) {
    const original = WebAssembly[f];
    if (!original) continue;
    WebAssembly[f] = function (...args) {
      mark("bench:wasm-" + f + "-start");
      return original.apply(this, args).then((r) => {
        mark("bench:wasm-" + f + "-end");
        return r;
      });
    };
  }
  // The first tier row is on show from the frame after the parser (or the
  // app) puts it in: watched from the start of the parse, since a script of
  // the body that holds the parser may stand after the risk panel's markup.
  // The loader's leaving counts from the end of parsing: DOMContentLoaded
  // can come later than the app's start, since Go may run before its task
  // (the module is compiled by then).
  const check = () => {
    if (document.querySelector("#tier-table tbody tr")) mark("bench:risk-table");
    if (document.readyState === "loading") return false;
    const appPage = !!document.querySelector('script[src="/app.js"]');
    if (appPage && !document.getElementById("app-wasm-loader")) mark("bench:loader-gone");
    return !appPage || (performance.getEntriesByName("bench:loader-gone").length > 0 &&
      performance.getEntriesByName("bench:risk-table").length > 0);
  };
  const observer = new MutationObserver(() => {
    if (check()) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
  document.addEventListener("readystatechange", () => {
    if (check()) observer.disconnect();
  });
})();

// benchStartTimes is what the benchmarks read of a page, in ms since its
// navigation (0: not yet, or never on this page).
window.benchStartTimes = () => {
  const at = (name) => {
    const m = performance.getEntriesByName(name, "mark");
    return m.length ? m[0].startTime : 0;
  };
  const appPage = !!document.querySelector('script[src="/app.js"]');
  // app.wasm is fetched by the page, or by the worker that compiles it
  // (web/app-start.js), which hands its timing back as a measure.
  const fetched = performance.getEntriesByName("riskchart:wasm-fetch", "measure")[0];
  const wasm = performance.getEntriesByName(location.origin + "/web/app.wasm", "resource")[0] ||
    (fetched && { startTime: fetched.startTime, responseEnd: fetched.startTime + fetched.duration, transferSize: fetched.detail.transferSize });
  const t = {
    appPage,
    // The first candles on screen: the first paint's sketch, before ECharts
    // runs (web/chart-boot.js), or the chart ECharts drew.
    drawn: at("riskchart:sketched") || at("riskchart:drawn"),
    chart: at("riskchart:drawn"), // the first chart ECharts drew
    appDrawn: at("riskchart:app-drawn"),
    running: appPage ? at("bench:loader-gone") : at("riskchart:drawn"),
    risk: at("bench:risk-table"),
    riskLive: at("riskchart:risk-first-data"), // the app's risk panel shows its data: its controls answer
    wasmStart: wasm ? wasm.startTime : 0,
    wasmResponseEnd: wasm ? wasm.responseEnd : 0,
    wasmTransfer: wasm ? wasm.transferSize : 0,
    wasmReady: at("bench:wasm-instantiateStreaming-end") || at("bench:wasm-instantiate-end"),
    marks: performance.getEntriesByType("mark")
      .filter((m) => m.name.startsWith("riskchart:"))
      .map((m) => ({ name: m.name, at: m.startTime })),
  };
  t.done = appPage ? t.drawn > 0 && t.running > 0 && t.risk > 0 && t.riskLive > 0 : t.drawn > 0;
  return t;
};
