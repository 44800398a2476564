package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkStartUpAB is make ab-startup: a change's start-up against the
// code before it, in one run. BenchmarkStartUp's pages and profiles, with
// the chart page of another build beside this one's ("before": the binary
// RISKCHART_AB_BIN serving the front end in RISKCHART_AB_ROOT, which make
// ab-startup builds from a commit), the three pages' rounds interleaved, so
// that both builds meet the same state of the host: runs minutes apart
// differ by more than most changes (docs/startup.md, "Method"). 16
// rounds on loopback and 6 on the mobile profile, unless RISKCHART_AB_ROUNDS
// says "loopback,mobile".
func BenchmarkStartUpAB(b *testing.B) {
	bin, root := os.Getenv("RISKCHART_AB_BIN"), os.Getenv("RISKCHART_AB_ROOT")
	if bin == "" || root == "" {
		b.Skip("not an A/B run: make ab-startup BEFORE=<commit> builds the code to compare with (RISKCHART_AB_BIN, RISKCHART_AB_ROOT)")
	}
	rounds, err := abRounds(os.Getenv("RISKCHART_AB_ROUNDS"))
	if err != nil {
		b.Fatal(err)
	}
	fault := pageFaultMicros() // before the browser and the servers take the host
	after := startServer(b, nil)
	before := startServerOf(b, bin, root, nil)
	plain := brotliInFront(b, plainOrigin(b, after.URL))
	alloc := newAllocator(b)
	names := []string{"before", "after", "plain-js"}
	urls := []string{before.URL + "/", after.URL + "/", plain + "/web/bench/plain.html"}
	warmUp(b, alloc, urls...)
	got := startRounds(b, alloc, urls, rounds)

	var out strings.Builder
	fmt.Fprintf(&out, "medians, ms, before → after (%d rounds on loopback, %d on the mobile profile); ratios to the plain page's first chart\n\n",
		rounds["loopback"], rounds["mobile"])
	metrics := []struct {
		name string
		f    func(startTimes) float64
	}{{"candles", func(t startTimes) float64 { return t.Drawn }}, {"running", func(t startTimes) float64 { return t.Running }},
		{"risk-live", func(t startTimes) float64 { return t.RiskLive }}, {"echarts", func(t startTimes) float64 { return t.Chart }}}
	for _, p := range startProfiles {
		if rounds[p.name] == 0 {
			continue
		}
		for v, visit := range []string{"cold", "next"} {
			pre := p.name + "-" + visit + "-"
			chart := medianOf(got[p.name][2][v], metrics[0].f) // the plain page's first chart
			var was, is [4]float64                             // metrics' medians, before and after
			for i, m := range metrics {
				was[i], is[i] = medianOf(got[p.name][0][v], m.f), medianOf(got[p.name][1][v], m.f)
				b.ReportMetric(was[i], pre+m.name+"-before-ms")
				b.ReportMetric(is[i], pre+m.name+"-after-ms")
			}
			b.ReportMetric(chart, pre+"candles-plain-ms")
			fmt.Fprintf(&out, "%-14s first candles %5.0f → %5.0f (%.3f× → %.3f×)   ECharts' chart %5.0f → %5.0f (%.2f× → %.2f×)   app running %5.0f → %5.0f (%.2f× → %.2f×)   risk panel live %5.0f → %5.0f   plain page %5.0f\n",
				p.name+" "+visit, was[0], is[0], was[0]/chart, is[0]/chart, was[3], is[3], was[3]/chart, is[3]/chart, was[1], is[1], was[1]/chart, is[1]/chart, was[2], is[2], chart)
		}
	}
	b.ReportMetric(fault, "host-page-fault-us")
	fmt.Fprintf(&out, "\nthis host's page fault: %.2f µs a page of fresh memory\n", fault)
	writeRounds(&out, got, names)
	os.WriteFile(filepath.Join(artifactDir(b), "startab.txt"), []byte(out.String()), 0o644)
}

// abRounds reads RISKCHART_AB_ROUNDS, "loopback,mobile" (16,6 when empty).
func abRounds(s string) (map[string]int, error) {
	if s == "" {
		return map[string]int{"loopback": 16, "mobile": 6}, nil
	}
	l, m, ok := strings.Cut(s, ",")
	loopback, err1 := strconv.Atoi(l)
	mobile, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || loopback < 1 || mobile < 0 {
		return nil, fmt.Errorf("RISKCHART_AB_ROUNDS is %q: want the rounds on loopback (1 or more) and on the mobile profile (0 or more), as \"16,6\"", s)
	}
	return map[string]int{"loopback": loopback, "mobile": mobile}, nil
}

func TestABRounds(t *testing.T) {
	tests := []struct {
		in               string
		loopback, mobile int
		ok               bool
	}{
		{"", 16, 6, true},
		{"10,4", 10, 4, true},
		{"8,0", 8, 0, true},
		{"0,4", 0, 0, false},
		{"10", 0, 0, false},
		{"10,-1", 0, 0, false},
		{"ten,4", 0, 0, false},
		{"10,4,2", 0, 0, false},
	}
	for _, tt := range tests {
		got, err := abRounds(tt.in)
		if tt.ok != (err == nil) {
			t.Errorf("abRounds(%q): error %v, want ok %v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && (got["loopback"] != tt.loopback || got["mobile"] != tt.mobile) {
			t.Errorf("abRounds(%q) = %v, want %d on loopback and %d on the mobile profile", tt.in, got, tt.loopback, tt.mobile)
		}
		if !tt.ok && !strings.Contains(err.Error(), "RISKCHART_AB_ROUNDS") {
			t.Errorf("abRounds(%q): %v does not name the variable", tt.in, err)
		}
	}
}
