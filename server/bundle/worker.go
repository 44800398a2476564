package bundle

// serviceWorker replaces go-app's default worker (its {{.Version}} and
// {{.ResourcesToCache}} are filled in by go-app). What differs:
//   - install waits for the precache (go-app's does not, so a first visit
//     could be left with half a cache) and activation waits for the cleanup;
//   - it does not claim the page that installed it: go-app reads a worker
//     that activates while one already controls the page as a new
//     deployment, so claiming on a first visit offered a pointless reload.
//     The next visit is controlled, cached and works offline;
//   - a page navigation goes to the network first and, offline, falls back to
//     the cached app shell whatever its path or query, so a reload with no
//     server still starts the app (which then draws what browser storage holds);
//   - the venue paths and the API are never cached here: they are live, and
//     the app keeps its own copy of the last data it saw.
const serviceWorker = `const cacheName = "app-" + "{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(cacheName).then((c) => c.addAll(resourcesToCache)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== cacheName).map((k) => caches.delete(k))))
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin ||
      url.pathname.startsWith("/sapi/") || url.pathname.startsWith("/api/") || url.pathname === "/login") {
    return; // live data: the network alone
  }
  if (req.mode === "navigate") {
    event.respondWith(fetch(req).catch(() => caches.match("/", { ignoreSearch: true })));
    return;
  }
  event.respondWith(caches.match(req).then((hit) => hit || fetch(req)));
});
`
