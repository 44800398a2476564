package gateway_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/venueapi"
)

// TestATypeCodesSeriesHoldsNoCandlesOfTheFutureBeforeIt: the gateway names a
// type code's series by its own clock (docs/decisions.md#contract-type-codes),
// the venue answers the code by its own. When the venue is still on the
// delivered future as the gateway's clock passes the delivery, that answer's
// closed candles are not the new future's and must not be held as its
// series: they would be served, as the new future's, until the next delivery.
func TestATypeCodesSeriesHoldsNoCandlesOfTheFutureBeforeIt(t *testing.T) {
	friday := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	from, to := friday.Add(-time.Hour).Unix(), friday.Add(-20*time.Minute).Unix()
	for _, tt := range []struct {
		query string
		lag   time.Duration // of the venue's clock behind the gateway's
	}{
		{"contract_code=BTC-USDT-CW&period=1min&size=300", 0},
		{"contract_code=BTC-USDT-CW&period=1min&size=300", 300 * time.Millisecond},
		{"contract_code=BTC-USDT-CW&period=1min&size=300", 2 * time.Second},
		{fmt.Sprintf("contract_code=BTC-USDT-CW&period=1min&from=%d&to=%d", from, to), 0},
		{fmt.Sprintf("contract_code=BTC-USDT-CW&period=1min&from=%d&to=%d", from, to), 2 * time.Second},
	} {
		query, lag := tt.query, tt.lag
		t.Run(query+"/"+lag.String(), func(t *testing.T) {
			clk := &clock{t: friday.Add(100 * time.Millisecond)} // the gateway's: just after the delivery
			venueNow := func() time.Time { return clk.Now().Add(-lag) }
			s := newStack(t, options{clock: clk, sandbox: func(c *sandbox.Config) { c.Now = venueNow }})
			if r := s.get(t, venueapi.PathKLine+"?"+query); r.status != 200 {
				// Refusing the delivered future's candles is fine: 1004, try again.
				if code, _ := r.errCode(t); code != venueapi.CodeBusy {
					t.Fatalf("HTTP %d %s", r.status, r.body)
				}
			}
			clk.Advance(time.Minute) // both past the delivery now
			got := s.get(t, venueapi.PathKLine+"?"+query).kline(t)
			want := s.direct(t, query)
			at := friday.Add(-30 * time.Minute).Unix() // a closed candle of the future's history
			pick := func(cs []venueapi.Candle) string {
				for _, c := range cs {
					if c.ID == at {
						b, _ := json.Marshal(c)
						return string(b)
					}
				}
				return "none"
			}
			if g, w := pick(got.Data), pick(want.Data); g != w {
				t.Errorf("after the delivery the gateway answers BTC-USDT-CW's candle of %s as\n%s\nthe venue as\n%s", time.Unix(at, 0).UTC().Format(time.DateTime), g, w)
			}
		})
	}
}
