package venue_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

// BenchmarkKLineCall2000 is a whole KLine call over loopback: the request,
// the 2000-candle answer, its reading and decoding, under the venue's public
// quota as a deployment runs it (venueapi.PublicLimit), which a loop of such
// calls stays under on two cores.
func BenchmarkKLineCall2000(b *testing.B) {
	env := venueapi.KLineEnvelope{Ch: "market.BTC-USDT.kline.1min", Status: venueapi.StatusOK, Ts: 1}
	for i := range 2000 {
		p := decimal.New(98803800+int64(i%97)*10, -3)
		env.Data = append(env.Data, venueapi.Candle{ID: 1763685600 + int64(i)*60, Vol: decimal.New(4146, 0), Count: decimal.New(692, 0),
			Open: p, Close: p, Low: p, High: p, Amount: decimal.New(4146, -3), TradeTurnover: decimal.New(4095746334, -4)})
	}
	body := env.AppendJSON(nil)
	srv := serve(b, func(w http.ResponseWriter, _ *http.Request, _ int64) { w.Write(body) })
	c := srv.client(b, nil)
	q := venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 2000}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if got, err := c.KLine(context.Background(), q); err != nil || len(got.Data) != 2000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkTiersCall is a whole signed call over loopback. The venue's
// private quota (venueapi.PrivateLimit: 72 calls per 3 s for a key) would
// make the loop a measure of the quota; it is raised to the most a quota may
// hold, so that the figure is a call's, the quota's bookkeeping included.
func BenchmarkTiersCall(b *testing.B) {
	srv := canned(b, 200, nil, `{"code":200,"message":"success","ts":1,"data":[{"contract_code":"BTC-USDT","margin_mode":"cross","tier":1,"max_lever":"125","maintenance_margin_rate":"0.004","max_volume":"50000","min_volume":"0","volume_unit":"contract"}]}`)
	c := srv.client(b, func(c *venue.Config) { c.PrivateQuota = venueapi.Limit{Requests: 1 << 16, Per: 3 * time.Second} })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Tiers(context.Background(), venueapi.TierQuery{ContractCode: "BTC-USDT"}); err != nil {
			b.Fatal(err)
		}
	}
}
