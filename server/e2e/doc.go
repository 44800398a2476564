// Package e2e holds Riskchart's end-to-end tests: the real server binary,
// started as a process on a loopback port with its embedded sandbox venue,
// driven over HTTP and in headless Chromium through chromedp. It has no code
// of its own outside its tests.
//
// make test runs them with the freshly built binary and Debian's chromium;
// alone, after make build (they read web/ and wasm_exec.js):
//
//	go test ./server/e2e
//
// RISKCHART_BIN names the binary to test; unset, the tests build ./server
// once per run. RISKCHART_CHROMIUM names the browser; without one the browser
// tests skip, except under CI=true, where they fail. Screenshots and timings
// go to artifacts/ at the repository's root, and BenchmarkFrontEnd (make
// bench) writes artifacts/frontbench.txt. RISKCHART_SANDBOX_SEED, given to
// the tests, is given to every server they start: the sandbox draws another
// market, and a test that passes on one market's prices and fails on
// another's reads the prices, not the page (make test-markets).
package e2e
