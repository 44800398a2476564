// The embed demo: what a customer's page does to embed Riskchart.
(() => {
  const riskchart = location.origin; // a customer writes Riskchart's address here
  const given = new URLSearchParams(location.search).get("link") || "";
  const src = (route, extra, link) => riskchart + "/embed/" + route + "?contract_code=BTC-USDT" + extra +
    (link && route !== "chart" ? "&embed=" + encodeURIComponent(link) : "");
  const frames = {
    chart: document.getElementById("demo-chart"),
    tiers: document.getElementById("demo-tiers"),
    limits: document.getElementById("demo-limits"),
  };
  frames.chart.src = src("chart", "&period=5min&controls=0");
  // Without ?link=, a server running its sandbox hands out a link of its
  // own; any other answers 404 and the panels say they have no access.
  const ownLink = given ? Promise.resolve(given) :
    fetch("/embed/demo/link").then((r) => (r.ok ? r.json() : {})).then((j) => j.link || "").catch(() => "");
  ownLink.then((link) => {
    if (link && !given) document.getElementById("demo-own-link").hidden = false;
    frames.tiers.src = src("tiers", "&controls=0", link);
    frames.limits.src = src("limits", "&controls=0", link);
  });

  const log = document.getElementById("demo-log");
  const candle = document.getElementById("demo-candle");
  window.addEventListener("message", (e) => {
    if (e.origin !== riskchart) return; // only Riskchart's embeds
    const from = Object.keys(frames).find((k) => frames[k].contentWindow === e.source);
    if (!from || !e.data || typeof e.data.type !== "string") return;
    log.textContent = from + " " + JSON.stringify(e.data) + "\n" + log.textContent;
    if (e.data.type === "riskchart:height" && from !== "chart") {
      frames[from].style.height = Math.min(Math.max(e.data.height, 120), 900) + "px";
    }
    if (e.data.type === "riskchart:candle") {
      const c = e.data.candle;
      candle.textContent = (e.data.clicked ? "Clicked" : "Pointing at") + " the candle of " +
        new Date(c.id * 1000).toISOString() + ": open " + c.open + ", high " + c.high + ", low " + c.low + ", close " + c.close;
    }
  });

  for (const b of document.querySelectorAll("[data-period],[data-contract],[data-theme]")) {
    b.addEventListener("click", () => {
      const msg = { type: "riskchart:set" };
      if (b.dataset.period) msg.period = b.dataset.period;
      if (b.dataset.contract) msg.contract_code = b.dataset.contract;
      if (b.dataset.theme) msg.theme = b.dataset.theme;
      for (const [route, f] of Object.entries(frames)) {
        if (route !== "chart" && !msg.contract_code && !msg.theme) continue; // panels have no period
        const m = Object.assign({}, msg);
        if (route !== "chart") delete m.period;
        f.contentWindow.postMessage(m, riskchart);
      }
    });
  }
})();
