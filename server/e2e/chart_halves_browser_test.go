package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/app/chartopt"
)

// written is a value and the label the app writes for it.
type written struct {
	v    float64
	want string
}

// TestTheFirstPaintWritesHalvesAsTheAppWill holds app.wasm back and writes
// values through the first paint's price axis labels, at the contract's
// decimals and on the percent scale, beside what the app writes for them
// once it adopts the chart (chartopt.FormatPrice and FormatPercent, from
// strconv.FormatFloat). A value exactly half way between two labels takes
// the even digit, as Go rounds: 0.125 at two decimals is "0.12", 2.5 at none
// "2". JavaScript's toFixed rounds it away from zero ("0.13", "3"), and the
// label changed by a digit when the app took the chart over. No contract of
// the sandbox is quoted in whole USDT: that case rewrites the page's list.
func TestTheFirstPaintWritesHalvesAsTheAppWill(t *testing.T) {
	s := startServer(t, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name, path string
		decimals   int32 // the contract's; -1: the percent scale's labels
		whole      bool  // the page's list rewritten to quote the contract in whole USDT
		cases      []written
	}{
		{"a contract quoted in whole USDT", "/?contract_code=BTC-USDT&period=1day", 0, true, []written{
			{2.5, "2"}, {3.5, "4"}, {0.5, "0"}, {1.5, "2"}, {-2.5, "-2"}, {1234.5, "1,234"}, {1235.5, "1,236"},
			{1e15 + 0.5, "1,000,000,000,000,000"}, {1<<52 - 0.5, "4,503,599,627,370,496"}, {1 << 53, "9,007,199,254,740,992"},
			{2.4999999999999996, "2"}, {2.5000000000000004, "3"},
		}},
		{"BTC-USDT, one decimal", "/?contract_code=BTC-USDT&period=1day", 1, false, []written{
			{0.25, "0.2"}, {0.75, "0.8"}, {98765.25, "98,765.2"}, {98765.75, "98,765.8"}, {0.05, "0.1"}, {0.15, "0.1"},
		}},
		{"ETH-USDT, two decimals", "/?contract_code=ETH-USDT&period=60min", 2, false, []written{
			{0.125, "0.12"}, {0.375, "0.38"}, {-0.125, "-0.12"}, {3300.625, "3,300.62"}, {98765432.125, "98,765,432.12"},
			{0.1, "0.10"}, {1.005, "1.00"}, {1.015, "1.01"}, {-0.001, "-0.00"},
		}},
		{"SHIB-USDT, nine decimals", "/?contract_code=SHIB-USDT&period=1min", 9, false, []written{
			{1.0 / 1024, "0.000976562"}, {3.0 / 1024, "0.002929688"}, {0.000012345, "0.000012345"},
		}},
		{"the percent scale", "/?contract_code=BTC-USDT&period=1day&scale=percent", -1, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newBrowser(t)
			held, hold := holdEach(ctx,
				&fetch.RequestPattern{URLPattern: appWasmPattern, RequestStage: fetch.RequestStageRequest}, // never let through
				&fetch.RequestPattern{URLPattern: s.URL + tc.path, RequestStage: fetch.RequestStageResponse})
			whenHeld(ctx, held[1], func(id fetch.RequestID) {
				err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
					if !tc.whole {
						return fetch.ContinueRequest(id).Do(ctx)
					}
					body, err := fetch.GetResponseBody(id).Do(ctx)
					if err != nil {
						return err
					}
					return answerWith(id, "text/html; charset=utf-8", quotedInWholeUSDT(body, "BTC-USDT")).Do(ctx)
				}))
				if err != nil && ctx.Err() == nil {
					t.Errorf("passing the page on: %v", err)
				}
			})
			if err := chromedp.Run(ctx, hold, chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!(window.riskchartBoot && riskchartBoot.drawn)`)
			if evalJS[bool](t, ctx, `performance.getEntriesByName("riskchart:main").length > 0`) {
				t.Fatal("app.wasm ran: it was not held back")
			}
			cases, write := tc.cases, func(v float64) string { return chartopt.FormatPrice(v, tc.decimals) }
			if tc.decimals < 0 {
				base := evalJS[float64](t, ctx, `+JSON.parse(riskchartBoot.answer).data[`+jsChart+`.getOption().dataZoom[0].startValue].close`)
				cases, write = percentHalves(t, base), func(v float64) string { return chartopt.FormatPercent(v, base) }
				cases = append(cases, written{base, "0.00%"})
				for range 300 {
					v := base * (0.8 + 0.4*rng.Float64())
					cases = append(cases, written{v, write(v)})
				}
			} else {
				for _, v := range randomHalves(rng, tc.decimals, 300) {
					cases = append(cases, written{v, write(v)})
				}
			}
			vs := make([]float64, len(cases))
			for i, c := range cases {
				if got := write(c.v); got != c.want {
					t.Fatalf("the app writes %v as %q, the case wants %q", c.v, got, c.want)
				}
				vs[i] = c.v
			}
			arg, err := json.Marshal(vs) // each float written as the shortest text that reads back to it
			if err != nil {
				t.Fatal(err)
			}
			got := evalJS[[]string](t, ctx, `((vs) => { const f = `+jsChart+`.getOption().yAxis[0].axisLabel.formatter; return vs.map((v) => f(v)); })(`+string(arg)+`)`)
			if len(got) != len(cases) {
				t.Fatalf("the first paint wrote %d labels for %d values", len(got), len(cases))
			}
			wrong := 0
			for i, c := range cases {
				if got[i] != c.want {
					if wrong++; wrong <= 8 {
						t.Errorf("the first paint writes %v as %q, the app %q", c.v, got[i], c.want)
					}
				}
			}
			if wrong > 8 {
				t.Errorf("and %d more of %d values", wrong-8, len(cases))
			}
		})
	}
}

// randomHalves is n values for labels of decimals places: half of them
// exactly half way between two labels (an odd multiple of
// 2^-(decimals+1), the only doubles that are), the rest anywhere, each
// positive or negative, below 2^29.
func randomHalves(rng *rand.Rand, decimals int32, n int) []float64 {
	out := make([]float64, 0, n)
	for i := range n {
		var v float64
		if i%2 == 0 {
			m := 2*rng.Int64N(1<<(28+decimals)) + 1 // odd, below 2^(29+decimals+1)
			v = math.Ldexp(float64(m), -int(decimals+1))
		} else {
			v = rng.Float64() * math.Pow(10, float64(rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		out = append(out, v)
	}
	return out
}

// percentHalves is the prices whose distance from base, in percent as the
// app reckons it ((v/base - 1) · 100), is exactly half way between two
// labels of two decimals: 25k/8 for odd k, of v/base = 1 + k/32. Each is
// written by the app's rule, the even digit, spelt out.
func percentHalves(t *testing.T, base float64) []written {
	t.Helper()
	var out []written
	for k := -31; k <= 63; k += 2 {
		q := 1 + float64(k)/32
		v := base * q
		for range 4 { // v/base may miss q by a rounding: a neighbour of v hits it
			if v/base == q {
				break
			}
			v = math.Nextafter(v, math.Copysign(math.Inf(1), q-v/base))
		}
		if v/base != q {
			continue
		}
		// 2500k/8 hundredths of a percent: a half, to the even hundredth.
		cents, sign := int(math.RoundToEven(float64(2500*k)/8)), "+"
		if cents < 0 {
			cents, sign = -cents, "-"
		}
		out = append(out, written{v, fmt.Sprintf("%s%d.%02d%%", sign, cents/100, cents%100)})
	}
	if len(out) < 20 {
		t.Fatalf("only %d prices at a half percent from %v", len(out), base)
	}
	return out
}

// contractOffer is a contract's object in the page's contract list.
var contractOffer = regexp.MustCompile(`\{[^{}]*"contract_code":"[A-Z0-9-]+"[^{}]*\}`)

// quotedInWholeUSDT is the page body with contract's price decimals 0 in
// the contract list the server put in it (app/boot.ContractsID).
func quotedInWholeUSDT(page []byte, contract string) []byte {
	decimals := regexp.MustCompile(`"price_decimals":\d+`)
	return contractOffer.ReplaceAllFunc(page, func(offer []byte) []byte {
		if !regexp.MustCompile(`"contract_code":"` + regexp.QuoteMeta(contract) + `"`).Match(offer) {
			return offer
		}
		return decimals.ReplaceAll(offer, []byte(`"price_decimals":0`))
	})
}
