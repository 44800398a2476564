// Baseline for make bench: fetch the same candles as the go-app page and
// draw them with the same frame, then mark "riskchart:drawn". With ?live=1
// it holds 2000 candles and then moves the newest one once a second, as the
// app's live updates do (the price series and the volume series of the
// candle's direction handed to ECharts), timing each as "riskchart:live".
(async () => {
  const q = new URLSearchParams(location.search);
  const [frame, res] = await Promise.all([
    fetch("/web/bench/frame.json").then(r => r.json()),
    fetch("/sapi/v1/market/history/kline?contract_code=" + (q.get("contract_code") || "BTC-USDT") + "&period=1min&size=" + (q.has("live") ? 2000 : 300)).then(r => r.json()),
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
  if (!q.has("live")) {
    return;
  }
  const last = prices[n - 1];
  for (let i = 1; i <= 30; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const start = performance.now();
    const close = last[1] + (i % 3 - 1) * 0.5; // up, down, unchanged in turn
    prices[n - 1] = [last[0], close, Math.min(last[2], close), Math.max(last[3], close)];
    const up = close >= last[0];
    (up ? ups : downs)[n - 1] = res.data[n - 1].vol + i;
    (up ? downs : ups)[n - 1] = "-";
    chart.setOption({ series: [{ data: prices }, up ? { data: ups } : {}, up ? {} : { data: downs }] });
    performance.measure("riskchart:live", { start, end: performance.now() });
  }
})();
