package risk

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Expected margins are worked by hand: contracts × 95000.5 × 0.001 × rate,
// e.g. 1001 × 95.0005 × 0.01 = 950.955005; 1000 USDT buys floor(1000 /
// 95.0005) = 10 contracts.
var d = decimal.RequireFromString

func ladder(unit string) []venueapi.Tier {
	return []venueapi.Tier{
		{Tier: 1, MinVolume: d("0"), MaxVolume: d("1000"), MaxLever: d("100"), MaintenanceMarginRate: d("0.005"), VolumeUnit: unit},
		{Tier: 2, MinVolume: d("1000"), MaxVolume: d("5000"), MaxLever: d("50"), MaintenanceMarginRate: d("0.01"), VolumeUnit: unit},
		{Tier: 3, MinVolume: d("5000"), MaxVolume: d("20000"), MaxLever: d("20"), MaintenanceMarginRate: d("0.025"), VolumeUnit: unit},
	}
}

// BTC-like: 0.001 BTC a contract at 95000.5 USDT: 95.0005 USDT a contract.
var btc = Contract{FaceValue: d("0.001"), MarkPrice: d("95000.5")}

func TestCalculate(t *testing.T) {
	limits := &venueapi.PositionLimit{BuyLimit: d("4000"), SellLimit: d("900")}
	tests := []struct {
		name       string
		tiers      []venueapi.Tier
		size       string
		unit       Unit
		leverage   string
		wantTier   int
		wantMargin string
		tooBig     bool
		long       bool
		short      bool
		wantMax    string // contracts
		wantErr    string // field
	}{
		{"a small position is tier 1", ladder("contract"), "10", Contracts, "20", 1, "4.7500250", false, true, true, "20000", ""},
		{"exactly on the tier 1 boundary is still tier 1", ladder("contract"), "1000", Contracts, "20", 1, "475.002500", false, true, false, "20000", ""},
		{"one over the boundary is tier 2", ladder("contract"), "1001", Contracts, "20", 2, "950.955005", false, true, false, "20000", ""},
		{"leverage above the tier's maximum is flagged", ladder("contract"), "3000", Contracts, "75", 2, "2850.01500", true, true, false, "1000", ""},
		{"the last tier's top is allowed", ladder("contract"), "20000", Contracts, "10", 3, "47500.2500", false, false, false, "20000", ""},
		{"beyond the last tier is an error", ladder("contract"), "20001", Contracts, "10", 0, "", false, false, false, "", "size"},
		{"a USDT size buys whole contracts", ladder("contract"), "1000", USDT, "10", 1, "4.750025", false, true, true, "20000", ""},
		{"a USDT ladder measures the position in USDT", ladder("usdt"), "1000", USDT, "10", 1, "4.750025", false, true, true, "210", ""},
		{"a USDT ladder boundary: 10 contracts = 950.005 USDT is tier 1, 11 is tier 2", ladder("usdt"), "11", Contracts, "10", 2, "10.4500550", false, true, true, "210", ""},
		{"less than one contract in USDT is an error", ladder("contract"), "50", USDT, "10", 0, "", false, false, false, "", "size"},
		{"a fraction of a contract is an error", ladder("contract"), "1.5", Contracts, "10", 0, "", false, false, false, "", "size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Calculate(tt.tiers, limits, btc, d(tt.size), tt.unit, d(tt.leverage))
			if tt.wantErr != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != tt.wantErr {
					t.Fatalf("error %v, want one on %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if int(r.Tier.Tier) != tt.wantTier || !r.Margin.Equal(d(tt.wantMargin)) || r.LeverageTooBig != tt.tooBig ||
				r.FitsLong != tt.long || r.FitsShort != tt.short || !r.Max.Contracts.Equal(d(tt.wantMax)) {
				t.Fatalf("tier %d margin %s tooBig %v long %v short %v max %s", r.Tier.Tier, r.Margin, r.LeverageTooBig, r.FitsLong, r.FitsShort, r.Max.Contracts)
			}
		})
	}
}

func TestMaxPositionForALeverageNoTierAllows(t *testing.T) {
	if _, _, ok := MaxPosition(ladder("contract"), d("125"), btc); ok {
		t.Fatal("a leverage above every tier's maximum allowed a position")
	}
}

func TestParseInput(t *testing.T) {
	for _, tt := range []struct {
		in      string
		lev     bool
		wantErr bool
	}{
		{"1.5", false, false}, {" 20 ", false, false}, {"", false, true}, {"-3", false, true}, {"0", false, true}, {"abc", false, true},
		{"1e3", false, false}, {"10", true, false}, {"2.5", true, true}, {"0", true, true},
	} {
		var err error
		if tt.lev {
			_, err = ParseLeverage(tt.in)
		} else {
			_, err = ParseAmount("size", tt.in)
		}
		if (err != nil) != tt.wantErr {
			t.Errorf("%q (leverage %v): error %v", tt.in, tt.lev, err)
		}
	}
}
