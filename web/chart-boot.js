// Riskchart's first paint. The server prerenders the chart page with the
// chart's frames, built in Go with go-echarts, and this script's
// configuration (app/boot.Config), and for a view with studies, a price
// scale or a chart style its look (app/boot.Look); this script draws the
// latest candles into them as soon as ECharts has run, with the studies'
// lines, while app.wasm is still downloading and compiling. On a view
// without a look, this script first sketches the candles on a canvas, laid
// out as ECharts will draw them, and draws the chart once a frame has shown
// the sketch, and ECharts, which the page's head runs without holding the
// parser for it, has run (docs/performance.md, "The candles sketched before
// ECharts").
// The app then adopts this ECharts instance (app/echarts.Adopt), decodes
// the same answer exactly and draws its own arrays into it; from then on
// the app alone drives the chart.
//
// The script holds no rule of the app's: which contract codes, periods, zones
// and themes the URL may name, how the time axis labels each period and
// which round times it names, and how much room the price axis' labels get,
// come with the configuration. The browser test TestChartFirstPaint compares
// its draw with the app's element by element, and
// TestTheFirstPaintWritesPricesAsTheAppWill its labels. A view the app reads
// otherwise is merely not adopted.
(() => {
  "use strict";
  // The page's controls are forms to the view they name (a click navigates
  // before the app runs; web/app-start.js submits a list's). A page the
  // service worker opens from its shell (offline, or the network slow) is
  // prerendered for the default view: a form's hidden fields take the rest
  // of the view from the URL instead. Once the app runs (go-app removes its
  // loader in the task that runs Go, before any of the app's handlers can
  // fire), the forms and their fields are the app's: a field this removed
  // would be one go-app removes again later, and its error would stop Go.
  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (form.method !== "get" || !document.getElementById("app-wasm-loader")) {
      return;
    }
    const own = new Set([...form.elements].filter((f) => f.name && f.type !== "hidden").map((f) => f.name));
    form.querySelectorAll('input[type="hidden"]').forEach((f) => f.remove());
    for (const [name, value] of new URLSearchParams(location.search)) {
      if (!own.has(name)) {
        const f = document.createElement("input");
        Object.assign(f, { type: "hidden", name, value });
        form.append(f);
      }
    }
  }, true);
  // ECharts, run by the page's head: at once, or, on a view this script
  // sketches, once it has come, without holding the parser meanwhile (an
  // async script: server/internal/bundle, sketch.go). runECharts says when it
  // has run, and runs it from here on a page whose head has none.
  const echartsSrc = new URL("echarts.min.js", document.currentScript.src).href; // its sibling in web/
  let echartsRun = null;
  const runECharts = () => {
    echartsRun ||= window.echarts ? Promise.resolve() : new Promise((resolve, reject) => {
      let script = [...document.scripts].find((s) => s.src === echartsSrc);
      if (script && (!script.async || script.dataset.failed !== undefined || script.dataset.ran !== undefined)) {
        // The head's script has run or failed without ECharts: a
        // parser-blocking one before this script, an async one that
        // web/app-start.js saw fail or run. Its load or error event has
        // gone, and waiting for it would hold the app's start for ever
        // (web/loader-patch.js waits for this).
        reject(new Error("ECharts did not load"));
        return;
      }
      if (!script) {
        script = document.createElement("script");
        script.src = echartsSrc;
        document.head.append(script);
      }
      script.addEventListener("load", () => resolve());
      script.addEventListener("error", () => reject(new Error("ECharts did not load")));
    });
    return echartsRun;
  };
  const conf = document.getElementById("chart-boot");
  const host = document.getElementById("chart");
  if (!conf || !host) {
    runECharts().catch(() => {}); // the app draws with it
    return;
  }
  const boot = JSON.parse(conf.textContent);
  const q = new URLSearchParams(location.search);
  // Codes and periods are read whatever their ASCII letters' case, as the
  // app reads them (app/components/viewparams.go).
  const code = (q.get("contract_code") || "").trim().replace(/[a-z]+/g, (s) => s.toUpperCase());
  const contract = code.length <= boot.contractMaxLen && new RegExp(boot.contractPattern).test(code) ? code : boot.contract;
  const asked = (q.get("period") || "").trim().replace(/[A-Z]+/g, (s) => s.toLowerCase());
  const period = Object.hasOwn(boot.labels, asked) ? asked : boot.period;
  // Day and month candles are named by their UTC date in every zone.
  const utc = q.get("tz") === boot.utc || boot.utcLabels.includes(period);
  const themeAsked = q.get("theme");
  const theme = boot.themes.includes(themeAsked) ? themeAsked : "auto";

  // The page preloads this request, and web/chart-answer.js has started
  // reading it when it is the one this view needs. ECharts starts only once
  // it has landed, and draws the frame and the candles in one setOption:
  // ECharts renders on each call, and an empty frame first was a second
  // render (docs/startup.md, "One render for the first paint").
  const url = boot.path + "?" + new URLSearchParams({ contract_code: contract, period, size: boot.size });
  const early = window.riskchartAnswer;
  const answer = early && early.href === url ? early.read : fetch(url, { credentials: "same-origin" }).then((res) => (res.ok ? res.text() : Promise.reject()));
  if (theme !== "auto") {
    // As the app will. The server's page has it already (bundle/theme.go);
    // a page the service worker opens from its shell does not.
    document.documentElement.setAttribute("data-theme", theme);
  }
  const dark = theme === "dark" || (theme === "auto" && matchMedia("(prefers-color-scheme: dark)").matches);
  // merged is option o with patch p over it, as ECharts merges a patch:
  // objects key by key, arrays of components index by index.
  const merged = (o, p) => {
    if (Array.isArray(o) && Array.isArray(p)) {
      return o.map((v, i) => (i < p.length ? merged(v, p[i]) : v));
    }
    if (o && p && typeof o === "object" && typeof p === "object" && !Array.isArray(o) && !Array.isArray(p)) {
      const out = { ...o };
      for (const [k, v] of Object.entries(p)) {
        out[k] = k in o ? merged(o[k], v) : v;
      }
      return out;
    }
    return p === undefined ? o : p;
  };
  // The frame of the view: with its studies' panes, its scale's price axis
  // and its style's price series when the server wrote its look into the
  // page (app/boot.Look; a page the service worker opens from its shell has
  // none), a narrow chart's on a narrow chart with studies, as the app's
  // first draw lays it out.
  const lookEl = (q.get("indicators") || q.get("scale") || q.get("style")) && document.getElementById(boot.lookID);
  const look = lookEl ? JSON.parse(lookEl.textContent) : null;
  // The sketch is drawn on a view without a look, whose frame is the
  // configuration's, and on one whose look the server marks as sketched
  // (boot.SketchAttr: a chart style or a percent scale, no studies, no log
  // scale).
  const sketching = !look || lookEl.hasAttribute(boot.sketchAttr);
  const frameOf = (shade) => {
    if (!look) {
      return boot.frames[shade];
    }
    return look.narrow && host.clientWidth <= look.narrowWidth ? merged(look.frames[shade], look.narrow) : look.frames[shade];
  };
  // A grid's box in a chart w x h px, as ECharts lays it out: its sides are
  // px, or percent of the chart.
  const box = (g, w, h) => {
    const px = (v, of) => (v === undefined ? 0 : String(v).endsWith("%") ? (parseFloat(v) * of) / 100 : parseFloat(v));
    const x = px(g.left, w), y = px(g.top, h);
    return { x, y, width: w - x - px(g.right, w), height: h - y - px(g.bottom, h) };
  };
  // The height of the frame's price grid in a chart h px high.
  const paneHeight = (frame, h) => box(frame.grid[0], 0, h).height;
  // A chart embed too low for the full layout takes the compact one now, by
  // the app's rules (app/boot.CompactRule): under the height its study panes
  // need (the period chips of the full layout filled a 320 x 240 frame and
  // left the chart no room), or when the frame's price grid in the chart's
  // box as laid out now would leave the candles under the least the app
  // allows (a 600 x 400 frame, whose chips take two lines). With studies,
  // the grid is measured from the highest top the app gives it (a narrow
  // chart's): the app, which keeps this layout at this size (state.compact),
  // would not measure more room. Once the answer is in, the grid is measured
  // again under the legend the app will write (legendTop), which may push
  // it lower, and the embed takes the compact layout then if the app would.
  const embed = document.getElementById("embed-root");
  const chartEmbed = !!embed && embed.classList.contains("embed-chart");
  let compact = chartEmbed && (() => {
    const rule = boot.compact;
    const panes = new Set((q.get("indicators") || "").split(",").map((s) => s.split(":")[0].trim().toLowerCase()).filter((s) => rule.panes.includes(s))).size;
    if (innerHeight < rule.below + panes * rule.perPane) {
      return true;
    }
    const frame = look ? merged(look.frames.light, look.narrow) : boot.frames.light; // the themes' grids are alike
    return paneHeight(frame, host.clientHeight) < rule.minPane;
  })();
  const takeCompact = () => {
    compact = true;
    embed.classList.add("embed-compact");
  };
  if (compact) {
    takeCompact();
  }
  // What the app reads when it adopts the chart (app/boot.State): chart
  // stays null unless candles were drawn (the app then starts ECharts
  // itself); settled says that this script is done (app.js waits on it);
  // priceTop is where the price grid starts under the legend measured
  // (legendTop), whose terms and values legend keeps for the browser tests;
  // sketch is how the sketch laid the chart out, which the browser tests
  // compare with ECharts' draw; runECharts is for web/loader-patch.js, which
  // starts Go only once ECharts has run.
  const state = {
    chart: null, el: host, contract, period, dark, priceTop: 0, legend: null, adopted: false, drawn: false, answer: null, settled: false, sketch: null, runECharts,
    get compact() {
      return compact;
    },
  };
  window.riskchartBoot = state;

  // The label layout is Go's (time.Format): 2006 the year, 01 the month,
  // 02 the day, 15 the hour, 04 the minute.
  const layout = boot.labels[period];
  const pad = (n) => (n < 10 ? "0" : "") + n;
  const label = (id) => {
    const d = new Date(id * 1000);
    const parts = utc
      ? { 2006: d.getUTCFullYear(), "01": pad(d.getUTCMonth() + 1), "02": pad(d.getUTCDate()), 15: pad(d.getUTCHours()), "04": pad(d.getUTCMinutes()) }
      : { 2006: d.getFullYear(), "01": pad(d.getMonth() + 1), "02": pad(d.getDate()), 15: pad(d.getHours()), "04": pad(d.getMinutes()) };
    return layout.replace(/2006|01|02|15|04/g, (t) => parts[t]);
  };

  // Which candles the time axis names, by the app's rule (app/boot.Config's
  // steps): the first of each round time, but none so near the grid's edge
  // that its label would be cut. Worked out for the view drawn first, whose
  // step is the one for the candles in view: all of a history shorter than
  // the candles shown at first.
  const steps = boot.steps[period];
  const stepFor = (visible) => steps.find((s) => visible <= s.upTo) || steps[steps.length - 1];
  const bucket = (step, id) => {
    const d = new Date(id * 1000);
    if (step.months) {
      return Math.floor((utc ? d.getUTCFullYear() * 12 + d.getUTCMonth() : d.getFullYear() * 12 + d.getMonth()) / step.months);
    }
    // Weeks count from a Monday, as chartopt.TimeStep.Bucket counts them.
    const monday = step.seconds % (7 * 86400) === 0 ? 3 * 86400 : 0;
    return Math.floor((id + (utc ? 0 : -d.getTimezoneOffset() * 60) + monday) / step.seconds);
  };
  const named = (ids, start, end, width) => {
    const step = stepFor(end - start + 1), edge = Math.floor(((end - start + 1) * boot.edgeHalf) / width) + 1;
    const near = (i) => (i > start && i - start < edge) || (i < end && end - i < edge);
    return (i) => i > 0 && i < ids.length && bucket(step, ids[i]) !== bucket(step, ids[i - 1]) && !near(i);
  };

  // The contract's decimals, from the list the server put in the page (the
  // app adopts the same list); -1 without it: ECharts writes the labels, and
  // the frame's room holds them.
  const decimals = (() => {
    const list = document.getElementById(boot.contractsID);
    try {
      const offer = list && JSON.parse(list.textContent).data.find((o) => o.contract_code === contract);
      return offer && Number.isInteger(offer.price_decimals) && offer.price_decimals >= 0 ? offer.price_decimals : -1;
    } catch {
      return -1;
    }
  })();
  // The price axis' room, fitted to its labels by the app's rule
  // (app/boot.RoomRule), so that the app's first draw keeps the grids where
  // they are: a coin quoted to nine decimals needs more than the frame's.
  const room = (format, lo, hi) => {
    const r = boot.priceRoom, ctx = document.createElement("canvas").getContext("2d");
    ctx.font = compact ? boot.compact.font : r.font;
    const w = Math.max(...[lo, hi + (hi - lo) * r.above].map((v) => ctx.measureText(format(v)).width));
    return Math.max(r.min, Math.ceil((Math.ceil(w) + r.pad) / r.step) * r.step);
  };

  // Numbers as the app writes them: thousands separated in the whole part
  // (chartopt.Group), and fixed to some decimals without a sign on zero.
  const grouped = (s) => {
    const [whole, frac] = s.split(".");
    return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac === undefined ? "" : "." + frac);
  };
  // The legend's: the app writes those from decimals (decimal.StringFixed),
  // a half away from zero, as toFixed rounds one.
  const fixed = (v, places) => {
    const s = v.toFixed(places);
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  };
  // The legend's candle, exactly as the app works it out in decimals: a
  // decimal is a BigInt of units and the places they count. A number of the
  // answer reads back as the text the venue wrote (a double's shortest text
  // is that text, trailing zeros aside, for up to 15 digits), where toFixed
  // rounds the double: 1.005 is a hair below it, "1.00" at two places where
  // the app writes "1.01". null: not a number.
  const pow10 = (n) => 10n ** BigInt(n);
  const decimal = (v) => {
    const m = /^(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(typeof v === "string" ? v.trim() : String(v));
    if (!m) {
      return null;
    }
    const frac = m[3] || "", places = frac.length - Number(m[4] || 0), units = BigInt(m[2] + frac) * pow10(Math.max(0, -places));
    return { units: m[1] ? -units : units, places: Math.max(0, places) };
  };
  const abs = (n) => (n < 0n ? -n : n);
  const scaledTo = (d, places) => d.units * pow10(places - d.places); // places ≥ d.places
  // n / d rounded half away from zero, as decimal.DivRound and Round do.
  const divRound = (n, d) => {
    const q = n / d; // toward zero
    return 2n * abs(n % d) >= abs(d) ? q + ((n < 0n) !== (d < 0n) ? -1n : 1n) : q;
  };
  // units written with places decimals, with no sign on zero.
  const unitsText = (units, places) => {
    const digits = abs(units).toString().padStart(places + 1, "0"), cut = digits.length - places;
    return (units < 0n ? "-" : "") + digits.slice(0, cut) + (places > 0 ? "." + digits.slice(cut) : "");
  };
  // d at places decimals (decimal.StringFixed), or as decimal.String writes
  // it (no trailing zeros) when places < 0.
  const decimalText = (d, places) => {
    if (places < 0) {
      return unitsText(d.units, d.places).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
    }
    return unitsText(places >= d.places ? scaledTo(d, places) : divRound(d.units, pow10(d.places - places)), places);
  };
  // The axes': the app writes those from floats (strconv.FormatFloat), a
  // value exactly half way to the even digit, where toFixed rounds away
  // from zero. A double is half way between two numbers of places decimals
  // only as an odd multiple of 2^-(places+1), m (a power of two scales it
  // exactly); toFixed's last digit is then odd, and Go's the one below it,
  // when m is one more than a multiple of 4: an odd digit less one, no carry
  // (the browser test TestTheFirstPaintWritesHalvesAsTheAppWill).
  const fixedLikeGo = (v, places) => {
    const s = v.toFixed(places);
    return (Math.abs(v) * 2 ** (places + 1)) % 4 === 1 ? s.slice(0, -1) + (s[s.length - 1] - 1) : s;
  };

  // The studies' lines over the candles, in floating point, as
  // docs/studies.md defines them, per kind of study (app/boot.LookStudy),
  // in the order of its lines: a value per candle, NaN where the study has
  // too little history. The first paint draws them, and measures the
  // latest in a copy of the legend; the app draws its exact ones over them.
  const empty = (n) => new Array(n).fill(NaN);
  const windowMean = (xs, k) => {
    const out = empty(xs.length);
    for (let i = 0, s = 0; i < xs.length; i++) {
      s += xs[i] - (i >= k ? xs[i - k] : 0);
      if (i >= k - 1) {
        out[i] = s / k;
      }
    }
    return out;
  };
  // The exponential average over k of xs from index from on, seeded with the
  // mean of its first k values.
  const ema = (xs, k, from = 0) => {
    const out = empty(xs.length), a = 2 / (k + 1);
    if (!(k > 0) || xs.length - from < k) {
      return out;
    }
    let e = 0;
    for (let i = from; i < from + k; i++) {
      e += xs[i] / k;
    }
    out[from + k - 1] = e;
    for (let i = from + k; i < xs.length; i++) {
      out[i] = e += a * (xs[i] - e);
    }
    return out;
  };
  const studySeries = {
    ma: (closes, vols, [k]) => [windowMean(closes, k)],
    ema: (closes, vols, [k]) => [ema(closes, k)],
    vol_ma: (closes, vols, [k]) => [windowMean(vols, k)],
    boll: (closes, vols, [k, width]) => {
      const mid = windowMean(closes, k), up = empty(closes.length), lo = empty(closes.length);
      for (let i = k - 1; i < closes.length; i++) {
        let d2 = 0;
        for (let j = i - k + 1; j <= i; j++) {
          d2 += (closes[j] - mid[i]) ** 2;
        }
        const sd = Math.sqrt(d2 / k);
        [up[i], lo[i]] = [mid[i] + width * sd, mid[i] - width * sd];
      }
      return [up, mid, lo];
    },
    macd: (closes, vols, [fast, slow, signal]) => {
      const f = ema(closes, fast), s = ema(closes, slow), dif = closes.map((_, i) => f[i] - s[i]), dea = ema(dif, signal, slow - 1);
      return [dif, dea, dif.map((d, i) => d - dea[i])];
    },
    rsi: (closes, vols, [k]) => {
      const out = empty(closes.length);
      let gain = 0, loss = 0;
      for (let j = 1; j < closes.length; j++) {
        const d = closes[j] - closes[j - 1], up = Math.max(d, 0), down = Math.max(-d, 0);
        gain = j <= k ? gain + up / k : (gain * (k - 1) + up) / k;
        loss = j <= k ? loss + down / k : (loss * (k - 1) + down) / k;
        if (j >= k) {
          out[j] = loss === 0 ? 100 : (100 * gain) / (gain + loss);
        }
      }
      return [out];
    },
  };
  // The view's study lines as the look names them, in the frame's order.
  const lineItems = look && look.studies ? look.studies.flatMap((study) => study.lines) : [];
  // Every study line of the view over candles, in the frame's order; none
  // without studies (or a page without its look).
  const studyLines = (candles) => {
    if (!look || !look.studies) {
      return [];
    }
    const closes = candles.map((c) => Number(c.close)), vols = candles.map((c) => Number(c.vol));
    return look.studies.flatMap((study) => {
      const lines = studySeries[study.kind] ? studySeries[study.kind](closes, vols, study.params) : [];
      return study.lines.map((_, j) => lines[j] || empty(candles.length));
    });
  };
  // The browser's zone as Go names it in WebAssembly (time.Local: "UTC+2",
  // "UTC-3:30"), which the app's legend writes after the time.
  const zone = () => {
    if (utc) {
      return " UTC";
    }
    const off = -new Date().getTimezoneOffset(), h = Math.floor(Math.abs(off) / 60), m = Math.abs(off) % 60;
    return " UTC" + (off < 0 ? "-" : "+") + h + (m ? ":" + m : "");
  };
  // Where the app starts the price grid under its legend of the latest
  // candle, on a chart with studies that is not narrow (app/boot.Look's
  // LegendFit, chartopt.PriceTopUnder): the legend's lines depend on what it writes.
  // A copy of it, written as the app writes it (app/components' legend),
  // out of sight in the legend's place, is measured and removed. 0: the
  // frame's top stands (no studies, a narrow chart, a compact embed).
  const legendTop = (candles, lines) => {
    const fit = look && look.legendFit, within = host.closest(".kchart");
    if (!fit || !within || compact || host.clientWidth <= look.narrowWidth) {
      return 0;
    }
    const c = candles[candles.length - 1], text = (v) => { const d = decimal(v); return d ? decimalText(d, -1) : String(v); };
    const price = (v) => { const d = decimal(v); return grouped(d ? decimalText(d, decimals) : String(v)); };
    const open = decimal(c.open) || { units: 0n, places: 0 }, close = decimal(c.close) || open, places = Math.max(open.places, close.places);
    const change = { units: scaledTo(close, places) - scaledTo(open, places), places }, up = change.units > 0n ? "+" : "";
    // change × 100 / open at two places: both counted in units of places, change's × 100 × 10^2 over open's.
    const percent = () => unitsText(divRound(change.units * 10000n, scaledTo(open, places)), 2);
    const items = [
      ["Time", label(c.id) + zone()],
      ["O", price(c.open)], ["H", price(c.high)], ["L", price(c.low)], ["C", price(c.close)],
      ["Chg", up + grouped(decimalText(change, decimals))],
      ["Chg%", open.units === 0n ? "\u2014" : up + percent() + "%"],
      ["Vol (cont)", grouped(text(c.vol))], ["Amount (" + contract.split("-")[0] + ")", grouped(text(c.amount))],
      ["Turnover (USDT)", grouped(text(c.trade_turnover))], ["Count", grouped(text(c.count))],
    ];
    lineItems.forEach((line, j) => {
      const v = lines[j][candles.length - 1], dp = line.finer > 0 && decimals >= 0 ? decimals + line.finer : line.places;
      items.push([line.name, Number.isFinite(v) ? grouped(fixed(v, dp)) : "\u2014"]);
    });
    const copy = document.createElement("dl");
    copy.className = "legend";
    copy.style.visibility = "hidden";
    for (const [term, value] of items) {
      const item = document.createElement("div"), dt = document.createElement("dt"), dd = document.createElement("dd");
      item.className = "legend-item";
      dt.textContent = term;
      dd.textContent = value;
      item.append(dt, dd);
      copy.append(item);
    }
    within.append(copy);
    state.legend = items;
    const bottom = Math.ceil(copy.getBoundingClientRect().bottom - host.getBoundingClientRect().top);
    copy.remove();
    return Math.max(Math.min(bottom + fit.clear + fit.spare, fit.most), bottom + fit.clear, fit.least);
  };

  // The labels of a log price axis, by the app's rule (app/echarts'
  // placeLogLabels, chartopt.LogTicks; rule is boot.LogRule): ECharts'
  // own log axis labels the powers of ten alone, which a day's prices do
  // not reach. Within each decade the labels are the multiples of the
  // finest of 1, 2, 2.5 and 5 times a power of ten that keeps them gap px
  // apart; the axis' pixels per factor of e are rounded to a quarter power
  // of two, so that a small zoom keeps the labels it has.
  const round = (x) => Math.sign(x) * Math.round(Math.abs(x)); // as Go's math.Round, halves away from zero
  // A whole number of least (the contract's tick; 0: any), as chartopt's niceStep.
  const wholeTimes = (s, least) => !(least > 0) || Math.abs(s / least - Math.round(s / least)) <= 1e-9 * (s / least);
  const niceStep = (d, least) => {
    d = Math.max(d, least);
    const p = 10 ** Math.floor(Math.log10(d));
    return ([1, 2, 2.5, 5].find((m) => m * p >= d && wholeTimes(m * p, least)) || 10) * p;
  };
  const roundTo = (v, step) => {
    let scale = 1;
    for (let s = step; Math.abs(s - round(s)) > 1e-9 * s && scale < 1e15; s = step * scale) {
      scale *= 10;
    }
    return round(v * scale) / scale;
  };
  const logTicks = (lo, hi, perE, rule, least) => {
    const shrink = 1 - Math.exp(-rule.gap / perE), ticks = [];
    for (let d = Math.floor(Math.log10(lo)); 10 ** d <= hi && ticks.length < rule.max; d++) {
      const from = Math.max(lo, 10 ** d), to = Math.min(hi, 10 ** (d + 1)), step = niceStep(to * shrink, least);
      for (let k = Math.ceil(from / step); k * step <= to && ticks.length < rule.max; k++) {
        const v = roundTo(k * step, step);
        if (ticks.length === 0 || perE * Math.log(v / ticks[ticks.length - 1]) >= rule.gap) {
          ticks.push(v);
        }
      }
    }
    return ticks;
  };
  // The app reads the axis' range and the grid's height from ECharts once
  // it has drawn, and hands the labels over in a second render; here both
  // are worked out before the one render: the range is the lowest and the
  // highest of the prices the series' encode puts on the axis (the closes
  // alone for a line or an area) and of the studies' lines drawn in the
  // price pane, over the candles in view, as the frame's dataMin and
  // dataMax make it.
  const logLabels = (candles, ys, lines, px, rule, least) => {
    let lo = Infinity, hi = -Infinity;
    for (const c of candles) {
      for (const y of ys) {
        lo = Math.min(lo, c[y]);
        hi = Math.max(hi, c[y]);
      }
    }
    for (const v of lines.flat()) {
      if (Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    if (!(lo > 0) || !(hi > lo) || !(px > 0)) {
      return null;
    }
    const perE = 2 ** (round(4 * Math.log2(px / Math.log(hi / lo))) / 4), wider = Math.exp(px / perE);
    return logTicks(lo / wider, hi * wider, perE, rule, least);
  };

  // The sketch. ECharts lays a category axis out in bands, one a candle,
  // a candle's body half a band wide and a bar the width its series names;
  // a value axis over the extent of the data in view, made nice: the step
  // of splitNumber parts rounded to 1, 2, 3, 5 or 10 times a power of ten,
  // and the extent widened to whole steps (its scale/helper.js and
  // coord/axisNiceTicks.js, whose arithmetic this is). Its split lines
  // and labels are at the steps, its axis line at the grid's foot, each
  // line on whole pixels. The browser test TestTheSketchIsLaidOutAsEChartsDrawsIt
  // holds the sketch to ECharts' draw, candle by candle.
  const exponent = (v) => {
    const e = Math.floor(Math.log(v) / Math.LN10);
    return v / 10 ** e >= 10 ? e + 1 : e;
  };
  const decimalsOf = (v) => {
    for (let i = 0, e = 1; i < 15; i++, e *= 10) {
      if (Math.round(v * e) / e === v) {
        return i;
      }
    }
    return 15;
  };
  const roundAt = (v, places) => +v.toFixed(Math.min(Math.max(0, places), 20));
  // least is the axis' minInterval, which the step is raised to.
  const niceExtent = (lo, hi, parts, least = 0) => {
    const raw = (hi - lo) / parts, e = exponent(raw), f = raw / 10 ** e;
    const step = Math.max(roundAt((f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * 10 ** e, e < 0 ? -e : 0), least);
    const places = decimalsOf(step) + 2;
    return { lo: roundAt(Math.floor(lo / step) * step, places), hi: roundAt(Math.ceil(hi / step) * step, places), step, places };
  };
  const crisp = (v) => Math.round(v - 0.5) + 0.5; // a 1 px line on whole pixels
  const sketch = (candles, start, frame, grid, format, times, draw, priceStep) => {
    const w = host.clientWidth, h = host.clientHeight, shown = candles.slice(start);
    const price = box(grid[0], w, h), volume = box(grid[1], w, h);
    if (!(price.width > 0 && price.height > 0 && volume.height > 0)) {
      return null;
    }
    // The price axis fits what the price series puts on it: the lows and
    // highs, or the closes alone of a line or an area (its encode.y).
    const [candle, up, down] = frame.series, fits = (candle.encode && candle.encode.y) || ["low", "high"];
    let lo = Infinity, hi = -Infinity, most = 0;
    for (const c of shown) {
      for (const d of fits) {
        lo = Math.min(lo, c[d]);
        hi = Math.max(hi, c[d]);
      }
      most = Math.max(most, c.vol);
    }
    if (!(hi > lo)) {
      return null;
    }
    const [priceAxis, volumeAxis] = frame.yAxis;
    const prices = niceExtent(lo, hi, priceAxis.splitNumber || 5, priceStep);
    const volumes = most > 0 ? niceExtent(0, most, volumeAxis.splitNumber || 5) : null;
    const band = price.width / shown.length;
    const x = (i) => price.x + band * (i - start + 0.5);
    const y = (v) => price.y + (price.height * (prices.hi - v)) / (prices.hi - prices.lo);
    const vy = (v) => volume.y + (volume.height * (volumes.hi - v)) / volumes.hi;
    const canvas = document.createElement("canvas"), ratio = devicePixelRatio || 1;
    canvas.width = Math.round(w * ratio);
    canvas.height = Math.round(h * ratio);
    canvas.className = "chart-sketch";
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
    const g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    g.lineWidth = 1;
    const line = (color, x0, y0, x1, y1) => {
      g.strokeStyle = color;
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
      g.stroke();
    };
    const right = price.x + price.width;
    const ticks = [];
    for (let k = 0, v = prices.lo; v <= prices.hi && k < 100; v = roundAt(prices.lo + ++k * prices.step, prices.places)) {
      ticks.push(v);
    }
    if (priceAxis.splitLine && priceAxis.splitLine.show) {
      for (const v of ticks) {
        line(priceAxis.splitLine.lineStyle.color, price.x, crisp(y(v)), right, crisp(y(v)));
      }
    }
    if (format && priceAxis.axisLabel && priceAxis.axisLabel.show) {
      g.font = compact ? boot.compact.font : boot.priceRoom.font; // as room() measures them
      g.fillStyle = priceAxis.axisLabel.color;
      g.textBaseline = "middle";
      for (const v of ticks) {
        g.fillText(format(v), right + 8, y(v)); // ECharts' axisLabel.margin
      }
    }
    frame.xAxis.forEach((axis, i) => {
      const b = i === 0 ? price : volume;
      line(axis.axisLine.lineStyle.color, b.x, crisp(b.y + b.height), b.x + b.width, crisp(b.y + b.height));
    });
    // The times the lowest axis names, under the volume grid, in ECharts'
    // font and label margin, laid out as its axis lays them out
    // (component/axis/AxisBuilder.js): centred on their candles, but the
    // first candle in view's time aligned to its left and the last's to its
    // right (alignMinLabel, alignMaxLabel), each taken as 3 px wider on
    // both sides (axisLabel.textMargin); an end's time left out when it
    // overlaps the one beside it, then each that overlaps one written before
    // it (hideOverlap).
    const timed = [], timeLabel = frame.xAxis[frame.xAxis.length - 1].axisLabel || {};
    if (timeLabel.show && times) {
      g.font = (timeLabel.fontSize || 12) + "px sans-serif";
      const end = candles.length - 1, side = 3, laid = [];
      for (let i = start; i <= end; i++) {
        if (times.names(i)) {
          const text = times.labels[i], w = g.measureText(text).width;
          const align = (i === start && timeLabel.alignMinLabel) || (i === end && timeLabel.alignMaxLabel) || "center";
          const left = align === "left" ? x(i) : align === "right" ? x(i) - w : x(i) - w / 2;
          laid.push({ i, text, align, left: left - side, right: left + w + side });
        }
      }
      const overlap = (a, b, touch) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > touch;
      if (laid.length > 1 && laid[0].i === start && overlap(laid[0], laid[1], 0.1)) {
        laid.shift();
      }
      if (laid.length > 1 && laid[laid.length - 1].i === end && overlap(laid[laid.length - 1], laid[laid.length - 2], 0.1)) {
        laid.pop();
      }
      g.fillStyle = timeLabel.color;
      g.textBaseline = "top";
      let before = null;
      for (const l of laid) {
        if (timeLabel.hideOverlap && before && overlap(l, before, 0.05)) {
          continue;
        }
        g.textAlign = l.align;
        g.fillText(l.text, x(l.i), volume.y + volume.height + (timeLabel.margin ?? 8));
        before = l;
        timed.push(l.i);
      }
    }
    const body = Math.max(band / 2, 1), bar = (parseFloat(up.barWidth) * band) / 100;
    // A style's price series as its drawing function draws it (the page's
    // ECharts build, server/cmd/echartsbuild/styles.js): the closes as a
    // line, over an area or not, or OHLC bars, a tick of 35 % of a band.
    if (draw && draw.fn === "closeLine") {
      const [color, area] = draw.args, path = () => shown.forEach((c, j) => g[j ? "lineTo" : "moveTo"](x(start + j), y(c.close)));
      if (area) {
        g.beginPath();
        path();
        g.lineTo(x(start + shown.length - 1), price.y + price.height);
        g.lineTo(x(start), price.y + price.height);
        g.globalAlpha = 0.15;
        g.fillStyle = color;
        g.fill();
        g.globalAlpha = 1;
      }
      g.beginPath();
      path();
      g.lineWidth = 1.5;
      g.strokeStyle = color;
      g.stroke();
      g.lineWidth = 1;
    }
    const bars = (c, cx) => {
      if (volumes && c.vol > 0) {
        g.fillStyle = (c.close < c.open ? down : up).itemStyle.color;
        g.fillRect(cx - bar / 2, vy(c.vol), bar, vy(0) - vy(c.vol));
      }
    };
    const tick = Math.max(band * 0.35, 1);
    shown.forEach((c, j) => {
      const i = start + j, cx = x(i);
      if (draw && draw.fn === "ohlcBars") {
        const color = c.close >= c.open ? draw.args[0] : draw.args[1];
        line(color, cx, y(c.high), cx, y(c.low));
        line(color, cx - tick, y(c.open), cx, y(c.open));
        line(color, cx, y(c.close), cx + tick, y(c.close));
      }
      if (draw) {
        bars(c, cx);
        return;
      }
      // ECharts' sign of a candle: its close against its open, or a doji
      // against the close before it.
      const before = i > 0 ? candles[i - 1].close : c.close;
      const rising = c.close > c.open || (c.close === c.open && before <= c.close);
      const top = y(Math.max(c.open, c.close)), foot = y(Math.min(c.open, c.close));
      const style = candle.itemStyle;
      g.fillStyle = rising ? style.color : style.color0;
      g.strokeStyle = rising ? style.borderColor : style.borderColor0;
      g.beginPath();
      g.moveTo(crisp(cx), y(c.high));
      g.lineTo(crisp(cx), top);
      g.moveTo(crisp(cx), foot);
      g.lineTo(crisp(cx), y(c.low));
      g.rect(Math.round(cx - body / 2) + 0.5, top, Math.max(Math.round(body) - 1, 0), Math.max(foot - top, 0));
      g.fill();
      g.stroke();
      bars(c, cx);
    });
    host.append(canvas); // ECharts empties the element when it starts
    return { width: w, height: h, grids: [price, volume], price: [prices.lo, prices.hi], volume: volumes ? [0, volumes.hi] : null, start, count: shown.length, timed };
  };
  // The sketch is on screen once a frame has drawn it; a page in a tab out of
  // sight draws no frame, and is not held for one.
  const onScreen = () => new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve));
    setTimeout(resolve, 100);
  });

  // An answer already read draws at the end of this script's task, before
  // the parser goes on and before the page's first frame.
  answer
    .then(async (text) => {
      const env = JSON.parse(text);
      if (env.status !== "ok" || !Array.isArray(env.data)) {
        return; // the app asks again and says what is wrong
      }
      state.answer = text;
      if (state.adopted || env.data.length === 0) {
        return;
      }
      if (!sketching && !window.echarts) {
        await runECharts(); // a look's draw needs ECharts from here on
      }
      const labels = [], ids = [], prices = [], ups = [], downs = [];
      let lo = Infinity, hi = -Infinity;
      for (const c of env.data) {
        ids.push(c.id);
        lo = Math.min(lo, c.low);
        hi = Math.max(hi, c.high);
        labels.push(label(c.id));
        prices.push([c.open, c.close, c.low, c.high]);
        const down = c.close < c.open;
        ups.push(down ? "-" : c.vol);
        downs.push(down ? c.vol : "-");
      }
      const n = labels.length, start = Math.max(0, n - boot.shown);
      const shade = dark ? "dark" : "light", full = frameOf(shade);
      // Under the legend the app will write, in the full layout: where that
      // leaves a chart embed's candles under the least the app allows, the
      // app would take the compact layout once it ran, and this paint takes
      // it now (an 800 x 400 embed with six volume averages).
      const lines = studyLines(env.data);
      let top = legendTop(env.data, lines);
      if (top > 0 && chartEmbed && paneHeight({ grid: [{ ...full.grid[0], top }] }, host.clientHeight) < boot.compact.minPane) {
        takeCompact();
        top = 0;
      }
      const frame = compact ? merged(full, look ? look.compact : boot.compact.patch) : full;
      // OHLC bars, a close line or area: a custom series, drawn by the
      // function the app hands it, from the page's ECharts build, over rows
      // with each candle's index first (app/chartopt/styles.go).
      const draw = look && look.draw && look.draw[shade];
      // The frame's series: price, volume up, volume down, then the study
      // lines, each as the app hands them over (chartopt.AppendPoints): a
      // Float64Array of each candle's index and value, NaN for no point.
      const data = [prices, ups, downs];
      for (const line of lines) {
        const points = new Float64Array(2 * n);
        line.forEach((v, i) => {
          points[2 * i] = i;
          points[2 * i + 1] = v;
        });
        data.push(points);
      }
      let { grid, yAxis, series } = frame;
      let priceLabel = null; // the price axis' labels, for the sketch
      const priceLabels = (format) => {
        priceLabel = format;
        yAxis = merged(yAxis, [{ axisLabel: { formatter: (v) => format(v) } }]);
      };
      // No two price lines less than the contract's tick apart, as the app
      // hands ECharts (chartopt.PriceStep): split finer, two lines of a
      // narrow range were written the same label.
      const priceTick = decimals >= 0 ? Number("1e-" + decimals) : 0; // 0: not known
      const priceStep = look && look.log ? 0 : priceTick; // a log axis takes it in logLabels
      if (priceStep > 0) {
        yAxis = merged(yAxis, [{ minInterval: priceStep }]);
      }
      if (decimals >= 0) {
        // As the app writes them (chartopt.FormatPrice): the contract's
        // decimals, thousands separated. Not Intl.NumberFormat: the first one
        // a page makes costs 55-125 ms on a cold start.
        const format = (v) => grouped(fixedLikeGo(v, decimals));
        const right = room(format, lo, hi);
        if (right > boot.priceRoom.min) {
          grid = grid.map((g) => ({ ...g, right }));
        }
        priceLabels(format);
      }
      if (top > 0) {
        grid = grid.map((g, i) => (i === 0 ? { ...g, top } : g));
        state.priceTop = top; // the app starts its frame there (app/boot.State)
      }
      // The volume axis' labels as the app writes them (chartopt.FormatVolume):
      // 950, 12.5K, 3.2M, in the largest unit the value reaches, and in the
      // next unit up when the value rounded to a decimal reaches that unit
      // (999,950 is 1M, not 1000K). String(-0) is "0", as the app writes it.
      const volume = (v) => {
        const units = boot.volumeUnits; // largest first
        const found = units.findIndex((u) => Math.abs(v) >= u.at);
        let i = found < 0 ? units.length : found;
        const at = (k) => (k < units.length ? units[k].at : 1);
        let r = round((v / at(i)) * 10) / 10;
        if (i > 0 && Math.abs(r) * at(i) >= units[i - 1].at) {
          i--;
          r = round((v / at(i)) * 10) / 10;
        }
        return String(r) + (i < units.length ? units[i].suffix : "");
      };
      yAxis = merged(yAxis, [{}, { axisLabel: { show: true, formatter: volume }, axisPointer: { label: { formatter: volume } } }]);
      if (look && look.percent) {
        // As the app writes them (chartopt.FormatPercent): how far a price is
        // from the close of the first candle in view, two decimals, signed.
        const base = env.data[start].close;
        priceLabels((v) => {
          if (base === 0 || isNaN(base) || isNaN(v)) {
            return "";
          }
          const p = (v / base - 1) * 100, fixed = fixedLikeGo(p, 2), s = fixed === "-0.00" ? "0.00" : fixed;
          return (p > 0 && s !== "0.00" ? "+" : "") + s + "%";
        });
      }
      if (sketching) {
        const times = { labels, names: named(ids, start, n - 1, host.clientWidth) };
        state.sketch = sketch(env.data, start, frame, grid, priceLabel, times, draw, priceStep);
        if (state.sketch) {
          performance.mark("riskchart:sketched");
          await onScreen();
        }
        await runECharts();
        if (state.adopted) {
          return;
        }
      }
      if (draw) {
        data[0] = echarts.indexed(prices, []);
        series = merged(series, [{ renderItem: echarts[draw.fn](...draw.args) }]);
      }
      const chart = echarts.init(host);
      if (look && look.log) {
        const encoded = frame.series[0].encode;
        const pricePane = 0; // app/studies.PanePrice, as the look writes a line's pane
        const inView = lines.filter((_, j) => lineItems[j].pane === pricePane).map((line) => line.slice(start));
        const values = logLabels(env.data.slice(start), encoded ? encoded.y : ["low", "high"], inView, paneHeight({ grid }, chart.getHeight()), look.log, priceTick);
        if (values) {
          yAxis = merged(yAxis, [{ axisLabel: { customValues: values }, axisTick: { customValues: values } }]);
        }
      }
      const interval = named(ids, start, n - 1, chart.getWidth()), last = frame.xAxis.length - 1; // the lowest axis names the times
      chart.setOption({
        ...frame,
        grid,
        yAxis,
        xAxis: frame.xAxis.map((axis, i) => (i === last ? { ...axis, data: labels, axisLabel: { ...axis.axisLabel, interval } } : { ...axis, data: labels })),
        series: series.map((s, i) => (i < data.length ? { ...s, data: data[i] } : s)),
        // By value: the frame's percentages would win over values given with them.
        dataZoom: frame.dataZoom.map(({ start: _, end: __, ...zoom }) => ({ ...zoom, startValue: start, endValue: n - 1 })),
      }, { notMerge: true });
      state.chart = chart;
      state.drawn = true;
      performance.mark("riskchart:drawn");
    })
    .catch(() => {}) // no answer: the app loads and reports it
    .finally(() => {
      // app.js starts Go only now (or after a time limit), so that Go does
      // not take the cores this paint needs (web/loader-patch.js); and only
      // once ECharts has run, which the app draws with.
      runECharts().catch(() => {}).finally(() => {
        state.settled = true;
        window.dispatchEvent(new Event("riskchart:first-paint"));
      });
    });

})();
