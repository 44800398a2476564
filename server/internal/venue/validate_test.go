package venue_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/venue"
	"github.com/riskchart/riskchart/venueapi"
)

func TestRequestsThatBreakARuleAreRefusedWithoutARequest(t *testing.T) {
	kline := func(q venueapi.KLineQuery) func(context.Context, *venue.Client) error {
		return func(ctx context.Context, c *venue.Client) error { _, err := c.KLine(ctx, q); return err }
	}
	tiers := func(q venueapi.TierQuery) func(context.Context, *venue.Client) error {
		return func(ctx context.Context, c *venue.Client) error { _, err := c.Tiers(ctx, q); return err }
	}
	limits := func(q venueapi.LimitQuery) func(context.Context, *venue.Client) error {
		return func(ctx context.Context, c *venue.Client) error { _, err := c.PositionLimits(ctx, q); return err }
	}
	kRange := func(code string, p venueapi.Period, from, to int64) func(context.Context, *venue.Client) error {
		return func(ctx context.Context, c *venue.Client) error {
			_, err := c.KLineRange(ctx, code, p, from, to)
			return err
		}
	}
	const btc = "BTC-USDT"
	tests := []struct {
		name      string
		call      func(context.Context, *venue.Client) error
		wantParam string
	}{
		{"a kline without a contract", kline(venueapi.KLineQuery{Period: venueapi.Period1Min, Size: 1}), "contract_code"},
		{"a kline of a lower-case contract", kline(venueapi.KLineQuery{ContractCode: "btc-usdt", Period: venueapi.Period1Min, Size: 1}), "contract_code"},
		{"a kline of a contract with a bad suffix", kline(venueapi.KLineQuery{ContractCode: "BTC-USDT-XQ", Period: venueapi.Period1Min, Size: 1}), "contract_code"},
		{"a kline of a future with an impossible date", kline(venueapi.KLineQuery{ContractCode: "BTC-USDT-261332", Period: venueapi.Period1Min, Size: 1}), "contract_code"},
		{"a kline without a period", kline(venueapi.KLineQuery{ContractCode: btc, Size: 1}), "period"},
		{"a kline of an unknown period", kline(venueapi.KLineQuery{ContractCode: btc, Period: "2min", Size: 1}), "period"},
		{"a kline of size 2001", kline(venueapi.KLineQuery{ContractCode: btc, Period: venueapi.Period1Min, Size: 2001}), "size"},
		{"a kline of a negative size", kline(venueapi.KLineQuery{ContractCode: btc, Period: venueapi.Period1Min, Size: -1}), "size"},
		{"a kline range with from after to", kline(venueapi.KLineQuery{ContractCode: btc, Period: venueapi.Period1Min, From: 120, To: 60, Range: true}), "from"},
		{"a kline range of 2001 candles", kline(venueapi.KLineQuery{ContractCode: btc, Period: venueapi.Period1Min, From: 0, To: 2000 * 60, Range: true}), "to"},
		{"tiers without a contract", tiers(venueapi.TierQuery{}), "contract_code"},
		{"tiers of a future", tiers(venueapi.TierQuery{ContractCode: "BTC-USDT-261225"}), "contract_code"},
		{"tiers of a contract-type code", tiers(venueapi.TierQuery{ContractCode: "BTC-USDT-CQ"}), "contract_code"},
		{"tiers in isolated margin", tiers(venueapi.TierQuery{ContractCode: btc, MarginMode: "isolated"}), "margin_mode"},
		{"limits of a malformed contract", limits(venueapi.LimitQuery{ContractCode: "BTC/USDT"}), "contract_code"},
		{"limits of a contract-type code", limits(venueapi.LimitQuery{ContractCode: "BTC-USDT-CW", BusinessType: "all"}), "contract_code"},
		{"limits of a future without a business type", limits(venueapi.LimitQuery{ContractCode: "BTC-USDT-261225"}), "business_type"},
		{"limits of a future as a swap", limits(venueapi.LimitQuery{ContractCode: "BTC-USDT-261225", BusinessType: "swap"}), "business_type"},
		{"limits of a future contract type without a business type", limits(venueapi.LimitQuery{Pair: btc, ContractType: venueapi.TypeNextQuarter}), "business_type"},
		{"limits of an unknown contract type", limits(venueapi.LimitQuery{ContractType: "perpetual"}), "contract_type"},
		{"limits of a malformed pair", limits(venueapi.LimitQuery{Pair: "BTCUSDT"}), "pair"},
		{"limits of an unknown business type", limits(venueapi.LimitQuery{BusinessType: "spot"}), "business_type"},
		{"a range with from after to", kRange(btc, venueapi.Period1Min, 120, 60), "from"},
		{"a range before the epoch", kRange(btc, venueapi.Period1Min, -60, 60), "from"},
		{"a range past the last second read", kRange(btc, venueapi.Period1Min, 60, venueapi.KLineMaxSeconds+1), "to"},
		{"a range of an unknown period", kRange(btc, "7min", 0, 60), "period"},
		{"a range of a malformed contract", kRange("BTC", venueapi.Period1Min, 0, 60), "contract_code"},
	}
	srv := canned(t, 200, nil, `{}`)
	c := srv.client(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(context.Background(), c)
			var inv *venue.InvalidRequestError
			var pe *venueapi.ParamError
			if !errors.As(err, &inv) || !errors.As(err, &pe) || pe.Param != tt.wantParam {
				t.Fatalf("error %v, want an InvalidRequestError naming %s", err, tt.wantParam)
			}
			if !strings.Contains(err.Error(), tt.wantParam) || pe.Rule == "" {
				t.Fatalf("message %q does not name %s and its rule", err, tt.wantParam)
			}
		})
	}
	if n := srv.n.Load(); n != 0 {
		t.Fatalf("%d invalid requests reached the venue", n)
	}
}

func TestValidRequestsThatLookOddAreSent(t *testing.T) {
	tests := []struct {
		name string
		call func(context.Context, *venue.Client) error
	}{
		{"a kline with none of size, from, to (the latest 150)", func(ctx context.Context, c *venue.Client) error {
			_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min})
			return err
		}},
		{"a kline with size and a range (size wins)", func(ctx context.Context, c *venue.Client) error {
			_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, Size: 5, From: 0, To: 1 << 30, Range: true})
			return err
		}},
		{"a kline of a contract-type code", func(ctx context.Context, c *venue.Client) error {
			_, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: "ETH-USDT-NW", Period: venueapi.Period1Mon, Size: 1})
			return err
		}},
		{"limits with no parameter at all", func(ctx context.Context, c *venue.Client) error {
			_, err := c.PositionLimits(ctx, venueapi.LimitQuery{})
			return err
		}},
		{"limits of a swap code with a futures contract type (the code wins)", func(ctx context.Context, c *venue.Client) error {
			_, err := c.PositionLimits(ctx, venueapi.LimitQuery{ContractCode: "BTC-USDT", Pair: "ETH-USDT", ContractType: venueapi.TypeQuarter})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := canned(t, 200, nil, `{"code":200,"status":"ok","data":[],"ts":1}`)
			if err := tt.call(context.Background(), srv.client(t, nil)); err != nil || srv.n.Load() != 1 {
				t.Fatalf("error %v after %d requests, want one request and success", err, srv.n.Load())
			}
		})
	}
}

// A range that the venue's own reading of the query refuses
// (venueapi.ParseKLineQuery: from and to are whole seconds from 0 to
// venueapi.KLineMaxSeconds) is refused by the client before any request, as
// every other broken rule is: a sandbox that received it answers 1030.
func TestKLine_ARangeTheVenueRefusesCostsNoRequest(t *testing.T) {
	c, sb, _ := startSandbox(t, sandbox.Config{Keys: sandboxKeys}, nil)
	tests := []struct {
		name     string
		from, to int64
		param    string
	}{
		{"from and to before the epoch", -120, -60, "from"},
		{"from before the epoch, to after it", -60, 60, "from"},
		{"to past the last second the venue reads", 1<<40 - 60, 1<<40 + 60, "to"},
		{"both past it", 1<<40 + 60, 1<<40 + 120, "from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.KLine(context.Background(), venueapi.KLineQuery{ContractCode: "BTC-USDT", Period: venueapi.Period1Min, From: tt.from, To: tt.to, Range: true})
			var inv *venue.InvalidRequestError
			var pe *venueapi.ParamError
			if !errors.As(err, &inv) || !errors.As(err, &pe) || pe.Param != tt.param {
				t.Fatalf("error %v, want an InvalidRequestError naming %s", err, tt.param)
			}
		})
	}
	if n := sb.Received(venueapi.PathKLine); n != 0 {
		t.Fatalf("%d ranges the venue refuses were sent to it", n)
	}
}
