// Riskchart's changes to go-app's loader. The server puts this file before
// go-app's app.js, in the same script (server/internal/bundle), and checks
// at start-up that app.js still has the two functions it replaces.
//
// No "use strict" here: first in the script, it would apply to go-app's code.
//
// On a two-core machine, running Go and installing the service worker
// alongside the chart's first paint made that paint three times slower than
// a plain page's; so:
//   - app.wasm is downloaded and compiled from the page's start, in a
//     worker (web/app-start.js), and Go starts only once the first paint
//     (web/chart-boot.js, which runs before app.js) has drawn or given up,
//     or after 1.5 s, and ECharts has run;
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
// settled (at once when there is none, or it already has). Past the time
// limit, it waits for ECharts still, when the first paint runs it (a page
// that sketches its candles first: web/chart-boot.js): Go draws with it.
function riskchartAfterFirstPaint(start) {
  const boot = window.riskchartBoot;
  if (!boot || boot.settled) {
    return start();
  }
  const echarts = () => (boot.runECharts ? boot.runECharts().catch(() => {}) : Promise.resolve());
  const withECharts = () => echarts().then(start);
  return new Promise((resolve) => riskchartOnce("riskchart:first-paint", 1500, () => resolve(withECharts())));
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

// riskchartWatchStream stands between the EventSource source and the app;
// the function it returns stops it. It tells error of each error of the
// stream, with its readyState then, a task later: as a page is left, the
// browser cuts its stream while detaching it (on a reload, even before
// pagehide), and the error then reaches no one, where told at once it woke
// Go inside the next page's commit (docs/startup.md, "The page being
// left"). A page put in the back-forward cache closes its stream, here and
// without Go, so that the server does not hold it, and its client's share of
// streams, for a page that may never be shown again; shown again, it tells
// shown, a task later, and the app opens another stream
// (docs/architecture.md).
function riskchartWatchStream(source, error, shown) {
  let on = true;
  let hidden = false;
  source.addEventListener("error", () => {
    const state = source.readyState;
    setTimeout(() => on && error(state));
  });
  const hide = (e) => {
    if (e.persisted && source.readyState !== EventSource.CLOSED) {
      source.close();
      hidden = true;
    }
  };
  const show = (e) => {
    if (e.persisted && hidden) {
      hidden = false;
      setTimeout(() => on && shown());
    }
  };
  addEventListener("pagehide", hide);
  addEventListener("pageshow", show);
  return () => {
    on = false;
    removeEventListener("pagehide", hide);
    removeEventListener("pageshow", show);
  };
}

// riskchartCompile compiles the module at url: the one web/app-start.js's
// worker compiled from the page's start when it did, here otherwise.
function riskchartCompile(url) {
  const here = () =>
    WebAssembly.compileStreaming
      ? WebAssembly.compileStreaming(fetch(url))
      : fetch(url).then((res) => res.arrayBuffer()).then((bytes) => WebAssembly.compile(bytes));
  const early = window.riskchartModule;
  if (!early) {
    return here();
  }
  const want = new URL(url, location.href).href;
  return early.then((m) => (m.url === want ? m.module : here()), here);
}

// riskchartNoApp says in go-app's loader note, in words, that the app will
// not run, and why (cause, an error, goes to the console): the page stays
// as the server wrote it and the first paint drew it, its controls links
// and forms that open the view they name. Without it the note said
// "Starting Riskchart…" for ever where the browser runs no WebAssembly
// (iOS's Lockdown Mode, a policy that turns it off), and the exception's
// own text ("TypeError: Failed to fetch", "CompileError: … @+14770") where
// app.wasm did not load.
function riskchartNoApp(why, cause) {
  console.warn("riskchart: the app does not run:", why, cause || "");
  const icon = document.getElementById("app-wasm-loader-icon");
  const label = document.getElementById("app-wasm-loader-label");
  if (icon) {
    icon.className = "goapp-logo";
  }
  if (label) {
    label.textContent = "The live app is unavailable: " + why + ". This page shows its data as loaded; its controls reload it.";
  }
}

// go-app's progress reporting is dropped (the loader label has no
// {progress}), and so is its fetch: it hands the instantiation below the
// URL, which riskchartCompile fetches only when the worker did not.
fetchWithProgress = (url) => url;
// go-app reads WebAssembly as it starts (but for a crawler, whose page it
// leaves as the server wrote it), and so does the wrapping below:
// where there is none, a throw there stopped the script before go-app ran.
const riskchartInitWebAssembly = goappInitWebAssembly;
goappInitWebAssembly = () =>
  typeof WebAssembly === "object" || !goappCanLoadWebAssembly() ? riskchartInitWebAssembly() : riskchartNoApp("this browser does not run WebAssembly");
// go-app runs Go as soon as its module is instantiated; the instantiation it
// awaits resolves once the first paint has settled. Compiling on the main
// thread from the page's start was tried: the first candles came 20–50 %
// later (docs/startup.md, "Tried and not kept"). When app.wasm cannot be
// had (the network, a truncated download, an error status), the note says
// so, and go-app, which would write the error's text over it, waits on.
if (typeof WebAssembly === "object") {
  WebAssembly.instantiateStreaming = (url, imports) =>
    riskchartCompile(url)
      .then((module) => WebAssembly.instantiate(module, imports).then((instance) => {
        performance.mark("riskchart:instantiated"); // Go may start once the first paint has settled
        return { module, instance };
      }))
      .then((r) => riskchartAfterFirstPaint(() => r), (err) => {
        riskchartNoApp("it could not be loaded", err);
        return new Promise(() => {});
      });
}

const riskchartRegisterWorker = goappInitServiceWorker;
goappInitServiceWorker = () => riskchartAfterAppDrawn(riskchartRegisterWorker);

// A new deployment is seen as the page's controller changing, not as
// go-app sees it, on the registration: the worker registers late, so the
// new deployment's worker can install and activate before go-app would
// listen there. The new worker then takes over every page of the old one
// (it skips waiting), and go-app offers the reload. A first visit's page
// has no controller and gets none: nothing to offer.
goappSetupNotifyUpdate = () => {};
if (navigator.serviceWorker && navigator.serviceWorker.controller) {
  navigator.serviceWorker.addEventListener("controllerchange", () => goappOnUpdate());
}

// riskchartParseMarkup parses the markup of a tree that go-app mounts
// (riskchart's build of go-app: server/cmd/wasmgoapp/goapp/markup.go) and
// returns its texts and elements in document order, or null when what it
// parsed is not the tree Go wrote: shape lists the depth and name of each
// node as Go meant them, "#" for a text. In the markup an empty comment
// separates two texts and a comment "e" stands for an empty text. Go then
// makes the nodes one by one, as go-app does. The counts are read by the
// browser tests.
function riskchartParseMarkup(markup, shape) {
  const t = document.createElement("template");
  t.innerHTML = markup;
  const nodes = [];
  let parsed = "";
  const walk = (parent, depth) => {
    for (let n = parent.firstChild; n; ) {
      const next = n.nextSibling;
      if (n.nodeType === Node.COMMENT_NODE) {
        if (n.data === "e") {
          const empty = document.createTextNode("");
          parent.replaceChild(empty, n);
          nodes.push(empty);
          parsed += depth + ":#,";
        } else {
          parent.removeChild(n);
        }
      } else if (n.nodeType === Node.TEXT_NODE) {
        nodes.push(n);
        parsed += depth + ":#,";
      } else {
        nodes.push(n);
        parsed += depth + ":" + n.localName + ",";
        walk(n, depth + 1);
      }
      n = next;
    }
  };
  walk(t.content, 0);
  if (parsed !== shape) {
    riskchartParseMarkup.refused++;
    return null;
  }
  riskchartParseMarkup.parsed++;
  return nodes;
}
riskchartParseMarkup.parsed = 0;
riskchartParseMarkup.refused = 0;
