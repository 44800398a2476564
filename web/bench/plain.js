// Baseline for make bench: fetch the same candles as the go-app page and
// draw them with the same frame, then mark "riskchart:drawn".
(async () => {
  const q = new URLSearchParams(location.search);
  const [frame, res] = await Promise.all([
    fetch("/web/bench/frame.json").then(r => r.json()),
    fetch("/sapi/v1/market/history/kline?contract_code=" + (q.get("contract_code") || "BTC-USDT") + "&period=1min&size=300").then(r => r.json()),
  ]);
  const pad = n => String(n).padStart(2, "0");
  const labels = [], prices = [], ups = [], downs = [];
  for (const c of res.data) {
    const d = new Date(c.id * 1000);
    labels.push(pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()));
    prices.push([c.open, c.close, c.low, c.high]);
    ups.push(c.close < c.open ? "-" : c.vol);
    downs.push(c.close < c.open ? c.vol : "-");
  }
  const chart = echarts.init(document.getElementById("chart"));
  chart.setOption(frame, { notMerge: true });
  const n = labels.length;
  chart.setOption({
    xAxis: [{ data: labels }, { data: labels }],
    series: [{ data: prices }, { data: ups }, { data: downs }],
    dataZoom: [{ startValue: Math.max(0, n - 120), endValue: n - 1 }, { startValue: Math.max(0, n - 120), endValue: n - 1 }],
  });
  performance.mark("riskchart:drawn");
})();
