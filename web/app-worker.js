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
//   - it does not claim the page that installed it: go-app reads a worker
//     that activates while one already controls the page as a new
//     deployment, so claiming on a first visit offered a pointless reload.
//     The next visit is controlled, cached and works offline;
//   - opening a page of the app (config.pages) is answered at once with the
//     cached app shell whatever its query, network or not: the app routes
//     itself and draws what browser storage holds while its data loads. A
//     new deployment is still found: the browser checks the worker script
//     on every navigation, and go-app offers the reload;
//   - the server's own pages (/login, /embed/demo) and live data
//     (config.live) are never answered from here: they are live, and the app
//     keeps its own copy of the last data it saw.
const cacheName = "app-" + "{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};
const config = {{.WorkerConfig}};

const isLive = (pathname) => config.live.some((prefix) => pathname.startsWith(prefix));

self.addEventListener("install", (event) => {
  event.waitUntil(Promise.all([
    routes(event),
    caches.open(cacheName).then((c) => c.addAll(resourcesToCache)),
  ]).then(() => self.skipWaiting()));
});

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
      event.respondWith(caches.match("/", { cacheName }).then((shell) => shell || fetch(req)));
    }
    return;
  }
  event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
});
