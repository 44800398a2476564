// Starts reading the page's preloaded KLine answer for web/chart-boot.js,
// and, once the first paint has drawn, the tiers for the app's risk panel.
// Sent inline in the head of every chart page and chart embed: why, and its
// other comments, on ChartAnswerJS in web/web.go.
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

  window.addEventListener("riskchart:first-paint", () => {
    const meta = document.querySelector('meta[name="riskchart-tiers"]');
    if (!meta) {
      return; // none to show, or the server wrote them into the page
    }
    const src = meta.content;
    const tiers = { href: src, read: null, answer: null };
    tiers.read = new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest(); // not fetch: why on ChartAnswerJS
      xhr.open("GET", src);
      xhr.onload = () => {
        tiers.answer = { status: xhr.status, text: xhr.responseText };
        resolve(tiers.answer);
      };
      // An abort (the reader stopping the page's loading) ends the request
      // without an error event: the app awaits this read, and would wait for ever.
      xhr.onerror = xhr.onabort = () => reject(new Error("no answer to " + src));
      xhr.send();
    });
    tiers.read.catch(() => {});
    window.riskchartTiers = tiers;
  }, { once: true });
})();
