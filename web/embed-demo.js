// The embed demo: what a customer's page does to embed Riskchart.
(() => {
  const link = new URLSearchParams(location.search).get("link") || "";
  const src = (route, extra) => "/embed/" + route + "?contract_code=BTC-USDT&parent=" + encodeURIComponent(location.origin) + extra +
    (link && route !== "chart" ? "&embed=" + encodeURIComponent(link) : "");
  const chart = document.getElementById("demo-chart");
  chart.src = src("chart", "&period=5min&controls=0");
  document.getElementById("demo-tiers").src = src("tiers", "");
  document.getElementById("demo-limits").src = src("limits", "");
  const log = document.getElementById("demo-log");
  window.addEventListener("message", (e) => {
    if (e.origin !== location.origin) return; // only our own embeds
    log.textContent = JSON.stringify(e.data) + "\n" + log.textContent;
  });
  for (const b of document.querySelectorAll("[data-period],[data-contract],[data-theme]")) {
    b.addEventListener("click", () => {
      const msg = { type: "riskchart:set" };
      if (b.dataset.period) msg.period = b.dataset.period;
      if (b.dataset.contract) msg.contract_code = b.dataset.contract;
      if (b.dataset.theme) msg.theme = b.dataset.theme;
      chart.contentWindow.postMessage(msg, location.origin);
    });
  }
})();
