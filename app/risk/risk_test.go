package risk

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// The expected figures below are worked by hand, not by the code under test.
var d = decimal.RequireFromString

// tiersOf builds a ladder: bands [0, tops[0]], (tops[0], tops[1]], …, with
// leverages and rates by tier.
func tiersOf(unit string, tops, levers, rates []string) []venueapi.Tier {
	out := make([]venueapi.Tier, len(tops))
	lower := "0"
	for i := range tops {
		out[i] = venueapi.Tier{ContractCode: "BTC-USDT", MarginMode: "cross", Tier: venueapi.TierNumber(i + 1),
			MinVolume: d(lower), MaxVolume: d(tops[i]), MaxLever: d(levers[i]), MaintenanceMarginRate: d(rates[i]), VolumeUnit: unit}
		lower = tops[i]
	}
	return out
}

var (
	levers = []string{"100", "50", "20"}
	rates  = []string{"0.005", "0.01", "0.025"}
	// A contract ladder: 0–1000, 1000–5000, 5000–20000 contracts.
	contractTiers = tiersOf(venueapi.UnitContract, []string{"1000", "5000", "20000"}, levers, rates)
	// A USDT ladder: 0–1000, 1000–5000, 5000–20000 USDT.
	usdtTiers = tiersOf(venueapi.UnitUSDT, []string{"1000", "5000", "20000"}, levers, rates)
	// The same, its last tier open-ended (the venue writes max_volume 0).
	openTiers = tiersOf(venueapi.UnitContract, []string{"1000", "5000", "0"}, levers, rates)

	// BTC-like: 0.001 BTC a contract at 95000.5 USDT is 95.0005 USDT a contract.
	btc = Contract{FaceValue: d("0.001"), MarkPrice: d("95000.5")}
	// Round figures: 1 unit a contract at 100 USDT is 100 USDT a contract, so
	// 10 contracts sit exactly on the USDT ladder's first boundary.
	round = Contract{FaceValue: d("1"), MarkPrice: d("100")}
)

func mustLadder(t testing.TB, tiers []venueapi.Tier) Ladder {
	t.Helper()
	l, err := NewLadder(tiers)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCalculate(t *testing.T) {
	limit := &venueapi.PositionLimit{ContractCode: "BTC-USDT", BuyLimit: d("4000"), SellLimit: d("1000")}
	tests := []struct {
		name      string
		tiers     []venueapi.Tier
		c         Contract
		limit     *venueapi.PositionLimit
		size      string
		unit      Unit
		leverage  string
		tier      int
		contracts string // the position
		usdt      string
		margin    string
		tooBig    bool
		maxVolume string // "" when no tier allows the leverage, "open" when unbounded
		maxConts  string
		long      Fit
		short     Fit
	}{
		{
			name: "a small position is in tier 1", tiers: contractTiers, c: btc, limit: limit,
			size: "10", unit: Contracts, leverage: "20",
			// 10 × 95000.5 × 0.001 × 0.005
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.750025",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits,
		},
		{
			name: "a size exactly on a band's top stays in the lower tier", tiers: contractTiers, c: btc, limit: limit,
			size: "1000", unit: Contracts, leverage: "20",
			tier: 1, contracts: "1000", usdt: "95000.5", margin: "475.0025",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits, // exactly the short limit fits
		},
		{
			name: "one contract over a band's top is the next tier", tiers: contractTiers, c: btc, limit: limit,
			size: "1001", unit: Contracts, leverage: "20",
			// 1001 × 95.0005 × 0.01
			tier: 2, contracts: "1001", usdt: "95095.5005", margin: "950.955005",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Exceeds,
		},
		{
			name: "a leverage above the tier's maximum is flagged", tiers: contractTiers, c: btc, limit: limit,
			size: "3000", unit: Contracts, leverage: "75",
			tier: 2, contracts: "3000", usdt: "285001.5", margin: "2850.015", tooBig: true,
			maxVolume: "1000", maxConts: "1000", long: Fits, short: Exceeds,
		},
		{
			name: "a leverage no tier allows has no largest position", tiers: contractTiers, c: btc, limit: limit,
			size: "10", unit: Contracts, leverage: "125",
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.750025", tooBig: true,
			long: Fits, short: Fits,
		},
		{
			name: "the top of a closed last tier is allowed", tiers: contractTiers, c: btc, limit: limit,
			size: "20000", unit: Contracts, leverage: "10",
			// 20000 × 95.0005 × 0.025
			tier: 3, contracts: "20000", usdt: "1900010", margin: "47500.25",
			maxVolume: "20000", maxConts: "20000", long: Exceeds, short: Exceeds,
		},
		{
			name: "an open-ended last tier takes any size", tiers: openTiers, c: btc, limit: limit,
			size: "1000000", unit: Contracts, leverage: "10",
			// 1000000 × 95.0005 × 0.025
			tier: 3, contracts: "1000000", usdt: "95000500", margin: "2375012.5",
			maxVolume: "open", long: Exceeds, short: Exceeds,
		},
		{
			name: "an open-ended ladder still caps a leverage only lower tiers allow", tiers: openTiers, c: btc, limit: limit,
			size: "5000", unit: Contracts, leverage: "50",
			tier: 2, contracts: "5000", usdt: "475002.5", margin: "4750.025",
			maxVolume: "5000", maxConts: "5000", long: Exceeds, short: Exceeds,
		},
		{
			name: "a USDT size buys the whole contracts it pays for", tiers: contractTiers, c: btc, limit: limit,
			size: "1000", unit: USDT, leverage: "10",
			// floor(1000 / 95.0005) = 10 contracts
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.750025",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits,
		},
		{
			name: "a USDT ladder measures the position in USDT", tiers: usdtTiers, c: btc, limit: limit,
			size: "11", unit: Contracts, leverage: "10",
			// 11 contracts are 1045.0055 USDT: above 1000, tier 2; 11 × 95.0005 × 0.01
			tier: 2, contracts: "11", usdt: "1045.0055", margin: "10.450055",
			// 20000 USDT is floor(20000 / 95.0005) = 210 contracts
			maxVolume: "20000", maxConts: "210", long: Fits, short: Fits,
		},
		{
			name: "a USDT ladder's boundary, reached exactly, stays in the lower tier", tiers: usdtTiers, c: round,
			size: "1000", unit: USDT, leverage: "100",
			tier: 1, contracts: "10", usdt: "1000", margin: "5",
			maxVolume: "1000", maxConts: "10", long: FitUnknown, short: FitUnknown,
		},
		{
			name: "a USDT ladder one contract past a boundary is the next tier", tiers: usdtTiers, c: round,
			size: "11", unit: Contracts, leverage: "50",
			tier: 2, contracts: "11", usdt: "1100", margin: "11",
			maxVolume: "5000", maxConts: "50", long: FitUnknown, short: FitUnknown,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Calculate(mustLadder(t, tt.tiers), tt.limit, tt.c, d(tt.size), tt.unit, d(tt.leverage))
			if err != nil {
				t.Fatal(err)
			}
			if int(r.Tier.Tier) != tt.tier || r.TierIndex != tt.tier-1 {
				t.Errorf("tier %d (index %d), want %d", r.Tier.Tier, r.TierIndex, tt.tier)
			}
			if !r.Position.Contracts.Equal(d(tt.contracts)) || !r.Position.USDT.Equal(d(tt.usdt)) {
				t.Errorf("position %s contracts, %s USDT; want %s, %s", r.Position.Contracts, r.Position.USDT, tt.contracts, tt.usdt)
			}
			if !r.Margin.Equal(d(tt.margin)) {
				t.Errorf("margin %s, want %s", r.Margin, tt.margin)
			}
			if r.LeverageTooBig != tt.tooBig {
				t.Errorf("leverage too big %v, want %v", r.LeverageTooBig, tt.tooBig)
			}
			switch tt.maxVolume {
			case "":
				if r.Max.Allowed {
					t.Errorf("largest position %+v, want none", r.Max)
				}
			case "open":
				if !r.Max.Allowed || !r.Max.Unbounded {
					t.Errorf("largest position %+v, want unbounded", r.Max)
				}
			default:
				if !r.Max.Allowed || r.Max.Unbounded || !r.Max.Volume.Equal(d(tt.maxVolume)) || !r.Max.Position.Contracts.Equal(d(tt.maxConts)) {
					t.Errorf("largest position %+v, want %s (%s contracts)", r.Max, tt.maxVolume, tt.maxConts)
				}
			}
			if r.Long != tt.long || r.Short != tt.short {
				t.Errorf("fits long %v short %v, want %v %v", r.Long, r.Short, tt.long, tt.short)
			}
		})
	}
}

func TestCalculateRefusesWhatNoTierOrOrderAllows(t *testing.T) {
	tests := []struct {
		name  string
		tiers []venueapi.Tier
		c     Contract
		size  string
		unit  Unit
		field string // "" for an error that is not the user's
		rule  string
	}{
		{"beyond a closed last tier", contractTiers, btc, "20001", Contracts, "size", "beyond the last tier"},
		{"beyond a closed USDT last tier", usdtTiers, round, "201", Contracts, "size", "beyond the last tier"},
		{"a fraction of a contract", contractTiers, btc, "1.5", Contracts, "size", "whole number"},
		{"less than one contract's worth of USDT", contractTiers, btc, "95", USDT, "size", "less than one contract"},
		{"an unknown unit", contractTiers, btc, "10", Unit("lots"), "unit", "contracts or USDT"},
		{"no mark price yet", contractTiers, Contract{FaceValue: d("0.001")}, "10", Contracts, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Calculate(mustLadder(t, tt.tiers), nil, tt.c, d(tt.size), tt.unit, d("10"))
			var fe *FieldError
			switch {
			case err == nil:
				t.Fatal("no error")
			case tt.field == "" && errors.As(err, &fe):
				t.Fatalf("%v blames the user's field", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Rule, tt.rule)):
				t.Fatalf("error %v, want one on %q saying %q", err, tt.field, tt.rule)
			}
		})
	}
}

func TestNewLadder(t *testing.T) {
	shuffled := []venueapi.Tier{contractTiers[2], contractTiers[0], contractTiers[1]}
	mixed := append(tiersOf(venueapi.UnitContract, []string{"1000", "5000"}, levers, rates), usdtTiers[2])
	falling := tiersOf(venueapi.UnitContract, []string{"1000", "500", "20000"}, levers, rates)
	twice := []venueapi.Tier{contractTiers[0], contractTiers[0]}
	openInside := tiersOf(venueapi.UnitContract, []string{"1000", "0", "20000"}, levers, rates)
	noLever := tiersOf(venueapi.UnitContract, []string{"1000"}, []string{"0"}, rates)
	tests := []struct {
		name    string
		tiers   []venueapi.Tier
		wantErr bool
	}{
		{"tiers out of order are put in order", shuffled, false},
		{"an open-ended last tier is a ladder", openTiers, false},
		{"no tiers is not a ladder", nil, true},
		{"tiers in two units are not one ladder", mixed, true},
		{"a band that tops below the one before is refused", falling, true},
		{"a tier listed twice is refused", twice, true},
		{"only the last tier may be open-ended", openInside, true},
		{"a tier without leverage is refused", noLever, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLadder(tt.tiers)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			for i := range l {
				if int(l[i].Tier) != i+1 {
					t.Fatalf("tier %d at index %d", l[i].Tier, i)
				}
			}
		})
	}
}

func TestNewLadderLeavesTheCallersTiersAlone(t *testing.T) {
	shuffled := []venueapi.Tier{contractTiers[2], contractTiers[0], contractTiers[1]}
	mustLadder(t, shuffled)
	if shuffled[0].Tier != 3 {
		t.Fatal("NewLadder sorted the caller's slice")
	}
}

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for an error
		rule string
	}{
		{"1.5", "1.5", ""},
		{" 20 ", "20", ""},
		{".5", "0.5", ""},
		{"0.000001", "0.000001", ""},
		{"", "", "enter a number"},
		{"   ", "", "enter a number"},
		{"-3", "", "more than zero"},
		{"0", "", "more than zero"},
		{"0.000", "", "more than zero"},
		{"abc", "", "must be a number"},
		{"1e3", "", "must be a number"},
		{"+5", "", "must be a number"},
		{"1,000", "", "must be a number"},
		{"1.2.3", "", "must be a number"},
		{".", "", "must be a number"},
		{strings.Repeat("9", 41), "", "must be a number"},
	}
	for _, tt := range tests {
		got, err := ParseAmount("size", tt.in)
		var fe *FieldError
		switch {
		case tt.want != "" && (err != nil || !got.Equal(d(tt.want))):
			t.Errorf("ParseAmount(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		case tt.want == "" && (!errors.As(err, &fe) || fe.Field != "size" || !strings.Contains(fe.Rule, tt.rule)):
			t.Errorf("ParseAmount(%q): error %v, want one on size saying %q", tt.in, err, tt.rule)
		}
	}
}

func TestParseLeverage(t *testing.T) {
	for _, tt := range []struct {
		in      string
		wantErr bool
	}{{"10", false}, {"1", false}, {"125", false}, {"2.5", true}, {"0", true}, {"", true}, {"x", true}} {
		_, err := ParseLeverage(tt.in)
		var fe *FieldError
		if tt.wantErr != (err != nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "leverage")) {
			t.Errorf("ParseLeverage(%q): error %v, want one: %v", tt.in, err, tt.wantErr)
		}
	}
}

// FuzzParseAmount: whatever is typed, the parser answers a positive exact
// number that reads back as typed, or a message on the field; never panics.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1.5", "", "-1", "1e9", "0.0", " 7 ", "٣", "1.", ".5", "99999999999999999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAmount("size", s)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "size" || fe.Rule == "" {
				t.Fatalf("%q: error %v does not name the field and the rule", s, err)
			}
			return
		}
		if !got.IsPositive() {
			t.Fatalf("%q parsed to %s, not positive", s, got)
		}
		if again := decimal.RequireFromString(strings.TrimSpace(s)); !again.Equal(got) {
			t.Fatalf("%q parsed to %s, reads back as %s", s, got, again)
		}
	})
}

func BenchmarkCalculate(b *testing.B) {
	l := mustLadder(b, tiersOf(venueapi.UnitContract,
		[]string{"5200", "21000", "84000", "210000", "520000", "1000000", "2100000", "4200000"},
		[]string{"200", "100", "50", "20", "10", "8", "6", "5"},
		[]string{"0.004", "0.005", "0.01", "0.025", "0.05", "0.06", "0.08", "0.1"}))
	limit := &venueapi.PositionLimit{BuyLimit: d("2100000"), SellLimit: d("2100000")}
	size, lever := d("250000"), d("10")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Calculate(l, limit, btc, size, USDT, lever); err != nil {
			b.Fatal(err)
		}
	}
}
