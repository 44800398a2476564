# Riskchart. Two commands do everything on a fresh machine:
#   make run    build, then serve on http://127.0.0.1:8080/ with the embedded sandbox venue
#   make test   install what the tests need (Go modules, echarts with Debian's npm, Debian's
#               chromium, redis-server, nginx and gcc), run them all: outside the browser under
#               the race detector
# Also: make build, make bench, make clean.

GO        ?= go
# The Go release that builds and tests everything, which the go command
# (1.21 or later) fetches from the module proxy on a machine whose own Go is
# another release; another release with GOTOOLCHAIN=go1.N.M in the
# environment. encoding/json as Go 1.26 had it, not rebuilt on json/v2,
# which added 0.9 MB to app.wasm (docs/deploy.md, "The Go it is built with").
export GOTOOLCHAIN := $(if $(filter go1.%,$(GOTOOLCHAIN)),$(GOTOOLCHAIN),go1.27.3)
export GOEXPERIMENT := nojsonv2
GOROOT    := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/wasm_exec.js
BIN       := bin/riskchart
# What bin/riskchart is built from, as go list tells it: the module's Go
# files the server links and every file they embed (the service worker's
# template, the loader's patch, the head's answer script, the Lua scripts
# run in Redis), so that an edit of any of them builds it again.
GO_SRC    := $(shell GOTOOLCHAIN=$(GOTOOLCHAIN) GOEXPERIMENT=$(GOEXPERIMENT) $(GO) list -e -deps -f '{{with .Module}}{{if eq .Path "github.com/riskchart/riskchart"}}{{range $$.GoFiles}}{{$$.Dir}}/{{.}} {{end}}{{range $$.EmbedFiles}}{{$$.Dir}}/{{.}} {{end}}{{end}}{{end}}' ./server) go.mod go.sum
APP_SRC   := $(shell find app venueapi -name '*.go' -not -name '*_test.go') go.mod go.sum
CHROMIUM  ?= /usr/bin/chromium
NGINX     ?= /usr/sbin/nginx
# What the tests start: this build's binary, and the browser.
TEST_ENV   = RISKCHART_BIN=$(CURDIR)/$(BIN) RISKCHART_CHROMIUM=$(CHROMIUM)
# Every package but the browser tests, as the shell lists it in a recipe.
UNIT_PKGS  = $$($(GO) list ./... | grep -v /server/e2e)

.PHONY: all run build test bench deps npm chromium redis-server nginx gcc vet clean wasm-size trace-startup profile-startup ab-startup test-markets test-race-browser

all: build

run: build
	./$(BIN)

ICONS     := web/icon-192.png web/icon-512.png web/icon-maskable-512.png

build: deps wasm_exec.js web/echarts.min.js.br web/app.wasm.br $(ICONS) $(BIN)

# The app icons are drawn by the build, not committed as binaries.
$(ICONS) &: server/cmd/icons/main.go
	$(GO) run ./server/cmd/icons web

deps: node_modules/.package-lock.json
	$(GO) mod download

# echarts is pinned in package.json/package-lock.json and served from web/, never from a CDN.
node_modules/.package-lock.json: package.json package-lock.json | npm
	npm ci --no-audit --no-fund

# Only the chart types and components the chart draws: half the full dist file.
web/echarts.min.js: node_modules/.package-lock.json server/cmd/echartsbuild/main.go server/cmd/echartsbuild/styles.js
	$(GO) run ./server/cmd/echartsbuild -o $@

# Brotli and gzip siblings, which the server sends to browsers that take them.
web/echarts.min.js.br web/echarts.min.js.gz &: web/echarts.min.js server/cmd/precompress/main.go
	$(GO) run ./server/cmd/precompress web/echarts.min.js

# The glue must match the compiler that built app.wasm, not go-app's embedded copy.
wasm_exec.js: $(WASM_EXEC)
	cp $(WASM_EXEC) $@

# app.wasm is built with go-app's server half (net/http, and with it crypto/tls
# and HTTP/2) left out of js/wasm: server/cmd/wasmgoapp (docs/startup.md,
# "What app.wasm links").
WASM_MOD  := build/wasm/go.mod
$(WASM_MOD): go.mod go.sum $(filter-out %_test.go,$(wildcard server/cmd/wasmgoapp/*.go)) $(wildcard server/cmd/wasmgoapp/goapp/*.go)
	$(GO) run ./server/cmd/wasmgoapp -out build/wasm || { rm -f $@; exit 1; } # written first: a failed run must not leave it up to date

# Go's linker writes one data segment per run of non-zero bytes (92,951 of
# them); wasmdata merges them: smaller on the wire (docs/startup.md, "Go's
# data segments, merged").
web/app.wasm: $(APP_SRC) $(WASM_MOD) server/cmd/wasmdata/main.go server/internal/wasmbin/wasmbin.go
	GOOS=js GOARCH=wasm $(GO) build -modfile $(WASM_MOD) -trimpath -ldflags='-s -w' -o $@.tmp ./app/wasm
	$(GO) run ./server/cmd/wasmdata $@.tmp
	mv $@.tmp $@

web/app.wasm.br web/app.wasm.gz &: web/app.wasm server/cmd/precompress/main.go
	$(GO) run ./server/cmd/precompress web/app.wasm

$(BIN): $(GO_SRC)
	$(GO) build -trimpath -o $@ ./server

# install-deb installs Debian's packages $(1), needed $(2), as root or
# through sudo: the body of each target below, which runs it only when
# what it installs is missing.
define install-deb
echo "installing Debian's $(1) $(2)"; \
if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; \
else echo "installing $(1) needs root: run make as root, or install sudo" >&2; exit 1; fi; \
$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $(1)
endef

# echarts comes from the npm registry: install Debian's npm (and with it Node.js) when there
# is no npm on PATH, as on a fresh Debian machine.
npm:
	@if ! command -v npm >/dev/null 2>&1; then $(call install-deb,npm,for the echarts package); fi

# Browser tests drive Debian's chromium; install it when it is missing.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then $(call install-deb,chromium,for the browser tests); fi

# The shared-state tests start their own redis-server processes; install Debian's when it
# is missing. Any service the package starts is not used by the tests.
redis-server:
	@if ! command -v redis-server >/dev/null 2>&1; then $(call install-deb,redis-server,for the shared-state tests); fi

# make test runs every test outside the browser under the race detector,
# which needs cgo and so a C compiler: install Debian's gcc when there is none.
gcc:
	@if ! command -v gcc >/dev/null 2>&1; then $(call install-deb,gcc libc6-dev,for the race detector); fi

# The deployment bench puts Debian's nginx in front of the replicas and of the
# venue (proxy_cache); install it when it is missing. /usr/sbin is not on a
# user's PATH, hence the path. The bench runs its own nginx on free loopback
# ports with its own configuration, never a system one the package may start.
nginx:
	@if [ ! -x $(NGINX) ]; then $(call install-deb,nginx,for the deployment bench); fi

# gofmt, go vet and staticcheck (go.mod's tool), on the server's platform
# and on the browser's: the app's files for js/wasm are checked only there.
# staticcheck is built for this machine (go tool -n gives its path) and told
# the browser's platform by GOOS and GOARCH: go tool under them would build
# it for js/wasm.
vet:
	@test -z "$$(gofmt -l app server venueapi web docs)" || { echo "gofmt needed:"; gofmt -l app server venueapi web docs; exit 1; }
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./app/...
	$(GO) tool staticcheck ./...
	GOOS=js GOARCH=wasm $$($(GO) tool -n staticcheck) ./app/...

# Every test and benchmark outside the browser, each benchmark once, so that
# one that no longer runs fails here and not first in make bench, all under
# the race detector: the gateway, the shared state, the streams and the
# sandbox are concurrent, and their tests run them on real sockets and a
# real redis-server (3-4 minutes on two cores). Then the browser tests.
# The timeout catches a hang, not a slow host: the browser tests alone take
# 15-20 minutes on two cores.
test: build chromium redis-server nginx gcc vet
	CGO_ENABLED=1 $(TEST_ENV) $(GO) test -race -count=1 -timeout 45m $(UNIT_PKGS)
	CGO_ENABLED=1 $(TEST_ENV) $(GO) test -race -count=1 -run '^$$' -bench . -benchtime 1x $(UNIT_PKGS)
	$(TEST_ENV) $(GO) test -count=1 -timeout 45m ./server/e2e

# The browser tests again on other markets than the one every machine shows
# (RISKCHART_SANDBOX_SEED): a test that passes on one market's prices and
# fails on another's reads the prices, not the page. About 9 minutes a market.
MARKETS ?= 2 3 4
test-markets: build chromium redis-server nginx
	@for seed in $(MARKETS); do \
		echo "the browser tests on the sandbox's market of seed $$seed"; \
		RISKCHART_SANDBOX_SEED=$$seed $(TEST_ENV) \
			$(GO) test -count=1 -timeout 45m ./server/e2e || exit 1; \
	done

# The browser tests against a server built with the race detector: a race
# it meets under the browsers' traffic makes it exit with status 66 at its
# SIGTERM, which the tests report as an unclean exit. About 20 minutes on two
# cores: not part of make test (docs/performance.md#test-suites).
test-race-browser: build chromium redis-server nginx gcc
	CGO_ENABLED=1 $(GO) build -race -trimpath -o build/race/riskchart ./server
	RISKCHART_BIN=$(CURDIR)/build/race/riskchart RISKCHART_CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -timeout 60m ./server/e2e

# Speed and memory are checked here, never by timed tests. One package's
# benchmarks at a time (-p 1): go test otherwise runs as many packages at
# once as there are cores, and each timed the others' load.
bench: build chromium redis-server nginx
	$(TEST_ENV) $(GO) test -run '^$$' -bench . -benchmem -count=1 -p 1 ./...
	$(GO) run ./server/cmd/loadtest -duration 5s -clients 32
	$(GO) run ./server/cmd/loadtest -deploy -bin $(BIN) -nginx $(NGINX) -duration 2s -rounds 4 -clients 32
	$(GO) run ./server/cmd/streambench -bin $(BIN)
	@echo "Front end in headless Chromium (BenchmarkFrontEnd; ratios are go-app page / plain ECharts page, same run):"
	@cat artifacts/frontbench.txt
	@echo "Start-up (BenchmarkStartUp; loopback and the mobile profile, cold and next visit, same run):"
	@cat artifacts/startbench.txt
	@echo "Start-up in a browser just opened on a profile that has shown the page before (BenchmarkStartUpNewProcess):"
	@cat artifacts/startnewprocess.txt

# Where a cold and a warm start of the chart page spend their time
# (docs/startup.md, "Method").
trace-startup: build chromium
	$(TEST_ENV) $(GO) test ./server/e2e -run '^$$' -bench '^BenchmarkStartUp(Trace|MainThread)$$' -benchtime 1x -count=1
	@cat artifacts/starttrace.txt artifacts/startmain.txt

# Go's first run in the page by function, cold and next visit (docs/startup.md,
# "Go's first run, by function").
# Profiled with an app.wasm that keeps its name section, built beside the shipped one.
profile-startup: build chromium
	GOOS=js GOARCH=wasm $(GO) build -modfile $(WASM_MOD) -trimpath -o build/profile/app.wasm ./app/wasm
	$(GO) run ./server/cmd/wasmdata build/profile/app.wasm
	$(TEST_ENV) RISKCHART_NAMED_WASM=$(CURDIR)/build/profile/app.wasm $(GO) test ./server/e2e -run '^$$' -bench '^BenchmarkStartUpProfile$$' -benchtime 1x -count=1
	@cat artifacts/startprofile.txt

# A change's start-up against the code at BEFORE (a commit), in one run with
# the rounds interleaved (BenchmarkStartUpAB; docs/startup.md, "Method"): the
# commit is built apart in build/ab, with this tree's node_modules.
# RISKCHART_AB_ROUNDS=loopback,mobile sets the rounds (16,6).
ab-startup: build chromium
	@test -n "$(BEFORE)" || { echo "make ab-startup BEFORE=<commit>: the code to compare this tree's with"; exit 2; }
	rm -rf build/ab && mkdir -p build/ab
	git archive --format=tar $(BEFORE) | tar -x -C build/ab
	cp -a node_modules build/ab/
	$(MAKE) -C build/ab build
	$(TEST_ENV) RISKCHART_AB_BIN=$(CURDIR)/build/ab/bin/riskchart RISKCHART_AB_ROOT=$(CURDIR)/build/ab $(GO) test ./server/e2e -run '^$$' -bench '^BenchmarkStartUpAB$$' -benchtime 1x -count=1 -timeout 60m
	@cat artifacts/startab.txt

# app.wasm's code per package, the data segments in one row (docs/startup.md,
# "Size per package (`make wasm-size`)").
wasm-size: deps $(WASM_MOD)
	$(GO) run ./server/cmd/wasmsize -modfile $(WASM_MOD) -top 15 ./app/wasm

clean:
	rm -rf bin build web/app.wasm web/app.wasm.gz web/app.wasm.br web/echarts.min.js web/echarts.min.js.gz web/echarts.min.js.br $(ICONS) node_modules
