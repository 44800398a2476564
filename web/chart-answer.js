// Starts reading the chart page's preloaded KLine answer for web/chart-boot.js.
// Sent inline in every chart page's head: why, and its other comments, on
// ChartAnswerJS in web/web.go.
(() => {
  "use strict";
  const link = document.querySelector('link[rel="preload"][as="fetch"][href^="/sapi/v1/market/history/kline?"]');
  if (!link) {
    return;
  }
  const href = link.getAttribute("href");
  const read = fetch(href, { credentials: "same-origin" }).then((res) => (res.ok ? res.text() : Promise.reject(new Error("HTTP " + res.status))));
  read.catch(() => {});
  window.riskchartAnswer = { href, read };
})();
