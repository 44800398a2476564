package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchStudies are the studies whose cost BenchmarkFrontStudies measures.
const benchStudies = "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi"

// BenchmarkFrontStudies is make bench's measure of what the studies cost
// (docs/performance.md, "What the studies cost"): the go-app page with and
// without ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi, in rounds taking turns to go
// first, each a fresh page load that prepends 2000 older candles and then
// takes ten live updates. The prepend is a full draw of the 2300 candles held
// (the arrays re-sent, the studies extended and re-sent, ECharts' whole
// pipeline); a live update is one candle's redraw through the live path.
func BenchmarkFrontStudies(b *testing.B) {
	s := startServer(b, nil)
	alloc := newAllocator(b)
	const rounds = 5
	urls := [2]string{s.URL + "/?contract_code=BTC-USDT&period=1min", s.URL + "/?contract_code=BTC-USDT&period=1min&indicators=" + benchStudies}
	var draw, live [2][]float64
	for range b.N {
		for r := range rounds {
			for j := range urls {
				i := (j + r) % len(urls)
				p, l := prependAndLive(b, alloc, urls[i], true)
				draw[i], live[i] = append(draw[i], p), append(live[i], l...)
			}
		}
	}
	out := ""
	for _, m := range []struct {
		name  string
		value float64
	}{
		{"draw-2000-ms", median(draw[0])}, {"draw-2000-studies-ms", median(draw[1])}, {"draw-studies-extra-ms", median(draw[1]) - median(draw[0])},
		{"live-ms", median(live[0])}, {"live-studies-ms", median(live[1])}, {"live-studies-extra-ms", median(live[1]) - median(live[0])},
	} {
		b.ReportMetric(m.value, m.name)
		out += fmt.Sprintf("%-24s %10.3f\n", m.name, m.value)
	}
	out += fmt.Sprintf("\nfull draws, ms, round by round:\nwithout %.0f\nwith    %.0f\n", draw[0], draw[1])
	os.WriteFile(filepath.Join(artifactDir(b), "frontstudies.txt"), []byte(out), 0o644)
}
