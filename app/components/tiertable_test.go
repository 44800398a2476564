package components

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

func tier(n int, min, max, lever, rate, unit string) venueapi.Tier {
	d := decimal.RequireFromString
	return venueapi.Tier{ContractCode: "BTC-USDT", MarginMode: "cross", Tier: venueapi.TierNumber(n),
		MinVolume: d(min), MaxVolume: d(max), MaxLever: d(lever), MaintenanceMarginRate: d(rate), VolumeUnit: unit}
}

// A ladder whose last tier is open-ended, listed out of order.
var openLadder = []venueapi.Tier{
	tier(2, "5200", "21000", "100", "0.005", venueapi.UnitContract),
	tier(3, "21000", "0", "50", "0.01", venueapi.UnitContract),
	tier(1, "0", "5200", "200", "0.004", venueapi.UnitContract),
}

func order(tiers []venueapi.Tier) string {
	s := ""
	for _, t := range tiers {
		s += fmt.Sprint(t.Tier)
	}
	return s
}

func TestSortTiers(t *testing.T) {
	tests := []struct {
		by   string
		desc bool
		want string
	}{
		{sortTier, false, "123"},
		{sortTier, true, "321"},
		{sortBand, false, "123"}, // the open-ended band (max 0) is the largest
		{sortBand, true, "321"},
		{sortLever, false, "321"},
		{sortLever, true, "123"},
		{sortRate, false, "123"},
		{"", false, "123"}, // an unknown column keeps tier order
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("by %q descending %v", tt.by, tt.desc), func(t *testing.T) {
			if got := order(sortTiers(openLadder, tt.by, tt.desc)); got != tt.want {
				t.Fatalf("order %s, want %s", got, tt.want)
			}
		})
	}
	if openLadder[0].Tier != 2 {
		t.Fatal("sortTiers reordered the panel's own tiers")
	}
}

func TestBandAndRateText(t *testing.T) {
	usdt := []venueapi.Tier{tier(1, "0", "100000", "75", "0.0065", venueapi.UnitUSDT), tier(2, "100000", "500000", "50", "0.0125", venueapi.UnitUSDT)}
	tests := []struct {
		name  string
		tiers []venueapi.Tier
		t     venueapi.Tier
		band  string
		rate  string
	}{
		{"a contract band says cont", openLadder, openLadder[2], "0 – 5,200 cont", "0.4%"},
		{"an open-ended last band has no top", openLadder, openLadder[1], "21,000 – ∞ cont", "1%"},
		{"a USDT band says USDT", usdt, usdt[0], "0 – 100,000 USDT", "0.65%"},
		{"a closed last band keeps its top", usdt, usdt[1], "100,000 – 500,000 USDT", "1.25%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bandText(tt.tiers, tt.t); got != tt.band {
				t.Errorf("band %q, want %q", got, tt.band)
			}
			if got := rateText(tt.t.MaintenanceMarginRate); got != tt.rate {
				t.Errorf("rate %q, want %q", got, tt.rate)
			}
		})
	}
}
