// Riskchart's chart styles that ECharts has no series for (app/chartopt/styles.go):
// OHLC bars, and the close as a line or an area. Each is the renderItem of a
// custom series over rows [index, open, close, low, high] (indexed), placed by
// the candle's index on the category time axis.

// indexed writes the candles' [open, close, low, high] items into rows, a
// custom series' rows with the candle's index first, from rows' last one on:
// the candles before it are the same ones at the same indexes (the chart
// starts rows anew when they are not). ECharts' zoom filters a series by
// its value on the time axis, and a series with none keeps every candle:
// its price axis would fit all the candles held, not those in view.
export function indexed(prices, rows) {
  rows.length = Math.min(rows.length, prices.length);
  for (let i = Math.max(rows.length - 1, 0); i < prices.length; i++) {
    const d = prices[i], v = Array.isArray(d) ? d : d.value;
    rows[i] = [i, v[0], v[1], v[2], v[3]];
  }
  return rows;
}

// ohlcBars draws each candle as a bar: a stroke from low to high, the open
// ticked to the left, the close to the right, in the rising or falling colour.
export function ohlcBars(up, down) {
  return function ohlcBars(params, api) {
    const i = api.value("index"), box = params.coordSys;
    const [x, yHigh] = api.coord([i, api.value("high")]);
    if (x < box.x - 1 || x > box.x + box.width + 1) return null; // out of view: nothing to draw
    const open = api.value("open"), close = api.value("close");
    const yLow = api.coord([i, api.value("low")])[1], yOpen = api.coord([i, open])[1], yClose = api.coord([i, close])[1];
    const tick = Math.max(api.size([1, 0])[0] * 0.35, 1);
    const style = {stroke: close >= open ? up : down, lineWidth: 1};
    return {type: "group", name: "ohlc-bar", children: [
      {type: "line", shape: {x1: x, y1: yHigh, x2: x, y2: yLow}, style},
      {type: "line", shape: {x1: x - tick, y1: yOpen, x2: x, y2: yOpen}, style},
      {type: "line", shape: {x1: x, y1: yClose, x2: x + tick, y2: yClose}, style},
    ]};
  };
}

// closeLine draws one polyline through the closes (and, for an area, the
// polygon under it), once, at the last item: ECharts calls renderItem per
// item, and a line of segments would break at every join.
export function closeLine(color, area) {
  return function closeLine(params, api) {
    const n = params.dataInsideLength;
    if (params.dataIndexInside !== n - 1) return null;
    const box = params.coordSys, points = [];
    for (let j = 0; j < n; j++) {
      const v = api.value("close", j);
      if (typeof v !== "number" || isNaN(v)) continue;
      points.push(api.coord([api.value("index", j), v]));
    }
    if (points.length === 0) return null;
    const line = {type: "polyline", name: "close-line", shape: {points}, style: {stroke: color, lineWidth: 1.5, fill: null}};
    if (!area) return line;
    const bottom = box.y + box.height;
    const fill = {type: "polygon", name: "close-area", shape: {points: [...points, [points[points.length - 1][0], bottom], [points[0][0], bottom]]},
      style: {fill: color, opacity: 0.15}};
    return {type: "group", children: [fill, line]};
  };
}
