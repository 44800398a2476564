// Starts reading the chart page's preloaded KLine answer. The server writes
// this script inline into the page's head, right after the <link> that
// preloads the answer (server/internal/bundle, allowed by its hash in the
// Content-Security-Policy), so it runs as the parser reaches it: before the
// stylesheets and the other scripts have loaded, while the main thread is
// idle. The answer's response and body then arrive in small tasks of their
// own, and it is text by the time the first-paint script (web/chart-boot.js)
// runs, which draws at the end of its own task, before the parser goes on
// and before the page's first frame. Read later (from a script file after
// the stylesheets, as this was), those tasks could come after the page's
// first layout and paint, and the candles a frame later
// (docs/performance.md, "The answer read from the head").
(() => {
  "use strict";
  const link = document.querySelector('link[rel="preload"][as="fetch"][href^="/sapi/v1/market/history/kline?"]');
  if (!link) {
    return;
  }
  // What chart-boot.js reads: the request and the promise of its text. The
  // server answers a refused query as the venue does, HTTP 200 with the
  // error in the envelope ("status": "error"): that is text like any answer,
  // and its readers tell it from candles by the envelope. Another status is
  // a failure of the transport, the server or its budget: the app asks again.
  const href = link.getAttribute("href");
  const read = fetch(href, { credentials: "same-origin" }).then((res) => (res.ok ? res.text() : Promise.reject(new Error("HTTP " + res.status))));
  read.catch(() => {}); // chart-boot.js handles a failure, or the app reports it
  window.riskchartAnswer = { href, read };
})();
