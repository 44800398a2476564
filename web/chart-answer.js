// Starts reading the page's preloaded KLine answer before ECharts loads.
// The answer usually lands while the browser is still loading ECharts, with
// the main thread idle; read here, it is text by the time the first-paint
// script (web/chart-boot.js) runs, which then draws at the end of its own
// task, before the parser goes on and before the page's first frame. Read
// there instead, it took tasks of its own, which ran only after the page's
// first layout and paint.
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
