// Riskchart's service worker, in place of go-app's default. go-app fills in
// the version and the files to keep; the server fills in the config
// (server/internal/bundle): the app's pages, from its route table, and the
// path prefixes of live data.
//
// What differs from go-app's:
//   - install waits for the precache (go-app's does not, so a first visit
//     could be left with half a cache) and activation waits for the cleanup.
//     A first visit asks for app.wasm twice (the page, the precache), but
//     the browser's HTTP cache answers the second with a 304: one download;
//   - what it keeps and shows is of its own build: every answer of the
//     front end names the build it is of (config.version), and an install
//     fails on an answer of another, as during a rolling deployment, where
//     a replica of the release before may answer some of its requests (the
//     browser tries again at its next check); a page of another build from
//     the network is not shown over this build's files (page);
//   - it does not claim the page that installed it: go-app reads a worker
//     that activates while one already controls the page as a new
//     deployment, so claiming on a first visit offered a pointless reload.
//     The next visit is controlled, cached and works offline;
//   - each page of the app (config.pages) is kept as its shell: the
//     server's page at its bare path, less the live data a page load gets.
//     Opening a bare path is answered at once with its shell, network or
//     not: the app draws what browser storage holds while its data loads.
//     Any other URL (a view or a contract in the query) is the server's to
//     prerender, with its own first data; its path's shell answers only
//     when the network fails, refuses the render for the client's rate
//     (429), or is slower than shellAfter, in the theme the
//     URL names (themed). One shell for every page would show a tiers embed
//     as the chart page, for BTC-USDT, until app.wasm ran. A new deployment
//     is still found:
//     the browser checks the worker script on every navigation, and go-app
//     offers the reload;
//   - the server's own pages (/login, /embed/demo) and live data
//     (config.live) are never answered from here: they are live, and the app
//     keeps its own copy of the last data it saw.
const version = "{{.Version}}";
const cacheName = "app-" + version;
const resourcesToCache = {{.ResourcesToCache}};
const config = {{.WorkerConfig}};

const isLive = (pathname) => config.live.some((prefix) => pathname.startsWith(prefix));

// shellAfter is how long a page's URL waits for the network before its
// path's shell answers instead (ms).
const shellAfter = 3000;

self.addEventListener("install", (event) => {
  event.waitUntil(Promise.all([routes(event), precache()]).then(() => self.skipWaiting()));
});

// otherBuild reports whether res names a build of the front end other than
// this worker's (config.version). An answer naming none (not the front
// end's, or through a proxy that drops the header) is taken as it is.
const otherBuild = (res) => {
  const build = res.headers.get(config.version);
  return build !== null && build !== version;
};

// precache keeps the app's files and each page's shell, every one an OK
// answer of this build, or nothing: nothing is put before all are in. A
// shell's request says it is one (config.shell): the server writes no
// viewer's data into it, even where it cannot tell a page being shown from
// a fetch (no Sec-Fetch-Dest).
function precache() {
  const files = [...new Set([...resourcesToCache, ...config.pages])];
  const fetched = files.map((file) => {
    const headers = config.pages.includes(file) ? { [config.shell]: "1" } : {};
    return fetch(file, { headers }).then((res) => {
      if (!res.ok || otherBuild(res)) {
        throw new Error("riskchart: " + file + " answered HTTP " + res.status + " of build " + res.headers.get(config.version) + ", not " + version + ": not installed");
      }
      return [file, res];
    });
  });
  return Promise.all(fetched).then((answers) =>
    caches.open(cacheName).then((c) => Promise.all(answers.map(([file, res]) => c.put(file, res))))
  );
}

// Where the browser supports static routes, it answers the app's files
// from this version's cache, and live data from the network, without
// running this script: passing a page's dozen files through a fetch handler
// slowed the first paint of a second visit. Navigations still come here
// (the shell), and a file the cache lacks falls back to the network.
function routes(event) {
  if (!event.addRoutes) {
    return Promise.resolve();
  }
  return event.addRoutes([
    { condition: { requestMode: "navigate" }, source: "fetch-event" },
    ...config.live.map((prefix) => ({ condition: { urlPattern: prefix + "*" }, source: "network" })),
    { condition: { requestMethod: "GET", urlPattern: "/*" }, source: { cacheName } },
  ]).catch((err) => console.warn("riskchart: static routes refused:", err));
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== cacheName).map((k) => caches.delete(k))))
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin || isLive(url.pathname)) {
    return; // live data: the network alone
  }
  if (req.mode === "navigate") {
    if (config.pages.includes(url.pathname)) {
      event.respondWith(page(req, url));
    }
    return;
  }
  event.respondWith(caches.match(req, { cacheName }).then((hit) => hit || fetch(req)));
});

// page answers the opening of a page of the app: a bare path with its shell
// at once, any other URL from the network, or from its path's shell when
// the network fails, answers 5xx, 429 (a page the server would render for a
// client whose rate is spent: the shell costs it nothing) or with a page of
// another build, or is slower than shellAfter. A page of another build (a deployment since this
// worker's install) would run this build's scripts, styles and app.wasm,
// which its cache answers, on the other's page until the reload go-app
// offers once the new build's worker takes over.
function page(req, url) {
  const shell = () => caches.match(url.pathname, { cacheName }).then((hit) => hit && themed(hit, url.searchParams.get("theme")));
  if (url.search === "") {
    return shell().then((hit) => hit || fetch(req));
  }
  const net = fetch(forwarded(req));
  return new Promise((resolve) => {
    let done = false;
    const answer = (res) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(res);
      }
    };
    const fallback = () => shell().then((hit) => answer(hit || net), () => answer(net));
    const timer = setTimeout(fallback, shellAfter);
    net.then((res) => (res.status >= 500 || res.status === 429 || otherBuild(res) ? fallback() : answer(res)), fallback);
  });
}

// forwarded is a page's navigation as the worker sends it on to the
// network, marked (config.navigation): the server writes the viewer's first
// data (the tiers, the contract list) only into a page being shown, and a
// request of this worker otherwise comes as a fetch (Sec-Fetch-Dest: empty),
// as its shells do, which carry none. A redirect goes back to the browser to
// follow, as it would without the worker. A request the browser will not
// build goes as it came, unmarked: the page then reads its data itself.
function forwarded(req) {
  const headers = new Headers(req.headers);
  headers.set(config.navigation, "1");
  try {
    return new Request(req.url, {
      headers,
      credentials: "include",
      redirect: "manual",
      cache: req.cache === "only-if-cached" ? "default" : req.cache,
      referrer: req.referrer,
      referrerPolicy: req.referrerPolicy,
    });
  } catch (err) {
    console.warn("riskchart: a navigation sent on unmarked:", err);
    return req;
  }
}

// themed is a shell with the theme its URL names on its <html> element, as
// the server puts it on its own page (server/internal/bundle/theme.go): a
// dark embed opened offline is not white until app.wasm runs. A shell is
// prerendered for the bare path, so it names none of its own.
function themed(shell, theme) {
  if (!config.themes.includes(theme)) {
    return shell;
  }
  return shell.text().then((html) => {
    const headers = new Headers(shell.headers);
    headers.delete("content-length");
    const page = html.replace(/<html(?=[\s>])/, '<html data-theme="' + theme + '"'); // "light" or "dark": nothing to escape
    return new Response(page, { status: shell.status, statusText: shell.statusText, headers });
  });
}
