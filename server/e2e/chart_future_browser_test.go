package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/riskchart/riskchart/venueapi"
)

// skewedClock moves the page's clock, Date and with it Go's time.Now in
// the app (wasm_exec.js reads the time of day from Date), by skew.
func skewedClock(skew time.Duration) string {
	return `(() => {
  const D = Date, skew = ` + strconv.FormatInt(skew.Milliseconds(), 10) + `;
  class Skewed extends D {
    constructor(...a) { if (a.length) { super(...a); } else { super(D.now() + skew); } }
    static now() { return D.now() + skew; }
  }
  window.Date = Skewed;
})();`
}

// Which future a contract-type code names is the server's word, by its
// clock (docs/decisions.md#contract-type-codes): a chart of one, in a
// browser whose clock is a delivery ahead of the server's or behind it,
// keeps its candles for the next visit under the delivery the server
// named, not the one the browser's clock gives.
func TestATypeCodesChartKeepsTheFutureTheServerNamesWhateverTheBrowsersClock(t *testing.T) {
	s := startServer(t, nil)
	prefix := "riskchart/chart/BTC-USDT-CW@"
	for _, skew := range []time.Duration{7 * 24 * time.Hour, -7 * 24 * time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			ctx := newBrowser(t)
			if err := chromedp.Run(ctx, onEveryDocument(skewedClock(skew)),
				chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT-CW&period=1day&tz=utc")); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT-CW|1day")
			if ahead := evalJS[float64](t, ctx, `Date.now()`) - float64(time.Now().UnixMilli()); ahead < float64(skew.Milliseconds())-60_000 || ahead > float64(skew.Milliseconds())+60_000 {
				t.Fatalf("the page's clock is %v ms off, want %v", ahead, skew)
			}
			keys := `Object.keys(localStorage).filter((k) => k.startsWith(` + strconv.Quote(prefix) + `))`
			tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			chromedp.Run(tctx, chromedp.Poll(keys+`.length > 0`, nil, chromedp.WithPollingInterval(25*time.Millisecond)))
			want := prefix + strconv.FormatInt(venueapi.LastDelivery(time.Now()).Unix(), 10) + "/1day"
			if got := evalJS[[]string](t, ctx, keys); len(got) != 1 || got[0] != want {
				t.Errorf("with the browser's clock %v off the server's, the chart keeps its candles under %q, want %q (the delivery by the server's clock)", skew, got, want)
			}
		})
	}
}
