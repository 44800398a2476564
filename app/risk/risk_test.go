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
		margin    string // maintenance, rounded up to 4 places
		initial   string
		tooBig    bool
		maxVolume string // "" when no tier allows the leverage, "open" when unbounded
		maxConts  string
		long      Fit
		short     Fit
	}{
		{
			name: "a small position is in tier 1", tiers: contractTiers, c: btc, limit: limit,
			size: "10", unit: Contracts, leverage: "20",
			// 10 × 95000.5 × 0.001 × 0.005 = 4.750025, up to 4.7501; 950.005 / 20 = 47.50025
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.7501", initial: "47.5003",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits,
		},
		{
			name: "a size exactly on a band's top stays in the lower tier", tiers: contractTiers, c: btc, limit: limit,
			size: "1000", unit: Contracts, leverage: "20",
			tier: 1, contracts: "1000", usdt: "95000.5", margin: "475.0025", initial: "4750.025",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits, // exactly the short limit fits
		},
		{
			name: "one contract over a band's top is the next tier", tiers: contractTiers, c: btc, limit: limit,
			size: "1001", unit: Contracts, leverage: "20",
			// amount_2 = 1000 × (0.01 − 0.005) = 5 cont; (1001 × 0.01 − 5) × 95.0005 = 475.952505:
			// one contract past the edge adds 0.95 USDT, not 475
			tier: 2, contracts: "1001", usdt: "95095.5005", margin: "475.9526", initial: "4754.7751",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Exceeds,
		},
		{
			name: "a leverage above the tier's maximum is flagged", tiers: contractTiers, c: btc, limit: limit,
			size: "3000", unit: Contracts, leverage: "75",
			// (3000 × 0.01 − 5) × 95.0005; at 75× only tier 1 (to 1000 cont) is allowed
			tier: 2, contracts: "3000", usdt: "285001.5", margin: "2375.0125", initial: "3800.02", tooBig: true,
			maxVolume: "1000", maxConts: "1000", long: Exceeds, short: Exceeds,
		},
		{
			name: "a leverage no tier allows has no largest position", tiers: contractTiers, c: btc, limit: limit,
			size: "10", unit: Contracts, leverage: "125",
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.7501", initial: "7.6001", tooBig: true,
			long: Exceeds, short: Exceeds, // nothing fits at a leverage no tier allows
		},
		{
			name: "the top of a closed last tier is allowed", tiers: contractTiers, c: btc, limit: limit,
			size: "20000", unit: Contracts, leverage: "10",
			// amount_3 = 5 + 5000 × (0.025 − 0.01) = 80 cont; (20000 × 0.025 − 80) × 95.0005
			tier: 3, contracts: "20000", usdt: "1900010", margin: "39900.21", initial: "190001",
			maxVolume: "20000", maxConts: "20000", long: Exceeds, short: Exceeds,
		},
		{
			name: "an open-ended last tier takes any size", tiers: openTiers, c: btc, limit: limit,
			size: "1000000", unit: Contracts, leverage: "10",
			// (1000000 × 0.025 − 80) × 95.0005
			tier: 3, contracts: "1000000", usdt: "95000500", margin: "2367412.46", initial: "9500050",
			maxVolume: "open", long: Exceeds, short: Exceeds,
		},
		{
			name: "an open-ended ladder still caps a leverage only lower tiers allow", tiers: openTiers, c: btc, limit: limit,
			size: "5000", unit: Contracts, leverage: "50",
			tier: 2, contracts: "5000", usdt: "475002.5", margin: "4275.0225", initial: "9500.05",
			maxVolume: "5000", maxConts: "5000", long: Exceeds, short: Exceeds,
		},
		{
			name: "a USDT size buys the whole contracts it pays for", tiers: contractTiers, c: btc, limit: limit,
			size: "1000", unit: USDT, leverage: "10",
			// floor(1000 / 95.0005) = 10 contracts
			tier: 1, contracts: "10", usdt: "950.005", margin: "4.7501", initial: "95.0005",
			maxVolume: "20000", maxConts: "20000", long: Fits, short: Fits,
		},
		{
			name: "a USDT ladder measures the position in USDT", tiers: usdtTiers, c: btc, limit: limit,
			size: "11", unit: Contracts, leverage: "10",
			// 11 contracts are 1045.0055 USDT: above 1000, tier 2; amount_2 = 1000 × 0.005 = 5 USDT;
			// 1045.0055 × 0.01 − 5 = 5.450055
			tier: 2, contracts: "11", usdt: "1045.0055", margin: "5.4501", initial: "104.5006",
			// 20000 USDT is floor(20000 / 95.0005) = 210 contracts, below both account limits
			maxVolume: "20000", maxConts: "210", long: Fits, short: Fits,
		},
		{
			name: "a USDT ladder's boundary, reached exactly, stays in the lower tier", tiers: usdtTiers, c: round,
			size: "1000", unit: USDT, leverage: "100",
			tier: 1, contracts: "10", usdt: "1000", margin: "5", initial: "10",
			maxVolume: "1000", maxConts: "10", long: FitUnknown, short: FitUnknown,
		},
		{
			name: "a USDT ladder one contract past a boundary is the next tier", tiers: usdtTiers, c: round,
			size: "11", unit: Contracts, leverage: "50",
			tier: 2, contracts: "11", usdt: "1100", margin: "6", initial: "22",
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
				t.Errorf("maintenance margin %s, want %s", r.Margin, tt.margin)
			}
			if !r.Initial.Equal(d(tt.initial)) {
				t.Errorf("initial margin %s, want %s", r.Initial, tt.initial)
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
			if r.Long.Fit != tt.long || r.Short.Fit != tt.short {
				t.Errorf("fits long %+v short %+v, want %v %v", r.Long, r.Short, tt.long, tt.short)
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
		{"beyond a closed last tier", contractTiers, btc, "20001", Contracts, "size", "Position size is beyond the last tier (tier 3 ends at 20000 contracts)"},
		{"beyond a closed USDT last tier", usdtTiers, round, "201", Contracts, "size", "Position size is beyond the last tier (tier 3 ends at 20000 USDT)"},
		{"a fraction of a contract", contractTiers, btc, "1.5", Contracts, "size", "Position size in contracts must be a whole number, like 15"},
		{"less than one contract's worth of USDT", contractTiers, btc, "95", USDT, "size", "Position size is less than one contract"},
		{"an unknown unit", contractTiers, btc, "10", Unit("lots"), "unit", "Size unit must be contracts or USDT"},
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
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field || !strings.HasPrefix(fe.Rule, tt.rule)):
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
	flat := tiersOf(venueapi.UnitContract, []string{"1000", "1000", "20000"}, levers, rates)
	openAtFloor := tiersOf(venueapi.UnitContract, []string{"1000", "5000", "5000"}, levers, rates)
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
		{"a band that tops where the one before does is refused", flat, true},
		{"a last tier topping at its own floor is open-ended", openAtFloor, false},
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
		msg  string // the error message's start
	}{
		{"1.5", "1.5", ""},
		{" 20 ", "20", ""},
		{".5", "0.5", ""},
		{"1000.", "1000", ""},
		{"0.000001", "0.000001", ""},
		{"1,000", "1000", ""},
		{"12,500.75", "12500.75", ""},
		{"1,000,000", "1000000", ""},
		{"1e3", "1000", ""},
		{"1.5E3", "1500", ""},
		{"2.5e-2", "0.025", ""},
		{"1e+2", "100", ""},
		{"", "", "Position size is empty: enter a number, like 1500"},
		{"   ", "", "Position size is empty"},
		{"-3", "", "Position size must be more than zero"},
		{"-1,000", "", "Position size must be more than zero"},
		{"0", "", "Position size must be more than zero"},
		{"0.000", "", "Position size must be more than zero"},
		{"0e5", "", "Position size must be more than zero"},
		{"1,5", "", "Position size has a comma that is not a thousands mark: write decimals with a point (1.5)"},
		{"1.000,5", "", "Position size has a comma that is not a thousands mark"},
		{"10,00", "", "Position size has a comma that is not a thousands mark"},
		{",100", "", "Position size has a comma that is not a thousands mark"},
		// a first group starting with 0 is a decimal comma: "0,165" is not 165
		{"0,165", "", "Position size has a comma that is not a thousands mark"},
		{"0,000,001", "", "Position size has a comma that is not a thousands mark"},
		{"00,500", "", "Position size has a comma that is not a thousands mark"},
		{"012,500", "", "Position size has a comma that is not a thousands mark"},
		{"100,500", "100500", ""},
		{"abc", "", "Position size must be a number, like 1500 (1,500 and 1.5e3 are read too)"},
		{"+5", "", "Position size must be a number"},
		{"1e", "", "Position size must be a number"},
		{"1e999", "", "Position size has an exponent of more than 2 digits: at most 2 are read, as in 1.5e3"},
		{"1e-100", "", "Position size has an exponent of more than 2 digits"},
		{"1e99", "1e99", ""},
		{"1,0e999", "", "Position size has a comma that is not a thousands mark"},
		{"1e9x9", "", "Position size must be a number"},
		{"e3", "", "Position size must be a number"},
		{"1 000", "", "Position size must be a number"},
		{"1.2.3", "", "Position size must be a number"},
		{".", "", "Position size must be a number"},
		{strings.Repeat("9", 41), "", "Position size is 41 characters long: at most 40 are read"},
		{strings.Repeat("9", 40), strings.Repeat("9", 40), ""},
	}
	for _, tt := range tests {
		got, err := ParseAmount("size", tt.in)
		var fe *FieldError
		switch {
		case tt.want != "" && (err != nil || !got.Equal(d(tt.want))):
			t.Errorf("ParseAmount(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		case tt.want == "" && (!errors.As(err, &fe) || fe.Field != "size" || !strings.HasPrefix(fe.Error(), tt.msg)):
			t.Errorf("ParseAmount(%q): error %v, want one on size starting %q", tt.in, err, tt.msg)
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
// number that reads back as typed (thousands commas aside), or a message on
// the field; never panics.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1.5", "", "-1", "1e9", "0.0", " 7 ", "٣", "1.", ".5", "99999999999999999999.99", "1,000.5", "1,5", "2E-3"} {
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
		if again := decimal.RequireFromString(strings.ReplaceAll(strings.TrimSpace(s), ",", "")); !again.Equal(got) {
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

// The sandbox's ladders, as docs/calculator.md works them: BTC-USDT in
// contracts (0.001 BTC each), SOL-USDT in USDT (1 SOL each).
var (
	btcLadder = tiersOf(venueapi.UnitContract,
		[]string{"5200", "21000", "84000", "210000", "520000", "1000000", "2100000", "4200000"},
		[]string{"200", "100", "50", "20", "10", "8", "6", "5"},
		[]string{"0.004", "0.005", "0.01", "0.025", "0.05", "0.06", "0.08", "0.1"})
	solLadder = tiersOf(venueapi.UnitUSDT,
		[]string{"100000", "500000", "2000000", "5000000", "10000000", "25000000", "50000000", "100000000"},
		[]string{"75", "50", "25", "20", "10", "5", "4", "3"},
		[]string{"0.0065", "0.01", "0.02", "0.025", "0.05", "0.1", "0.125", "0.16"})
	btcMark = Contract{FaceValue: d("0.001"), MarkPrice: d("99613.5"), PriceDecimals: 1}
	solMark = Contract{FaceValue: d("1"), MarkPrice: d("180"), PriceDecimals: 3}
)

func TestMaintenanceAmounts(t *testing.T) {
	tests := []struct {
		name  string
		tiers []venueapi.Tier
		want  []string
	}{
		{"a ladder in contracts has amounts in contracts", btcLadder,
			[]string{"0", "5.2", "110.2", "1370.2", "6620.2", "11820.2", "31820.2", "73820.2"}},
		{"a ladder in USDT has amounts in USDT", solLadder,
			[]string{"0", "350", "5350", "15350", "140350", "640350", "1265350", "3015350"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustLadder(t, tt.tiers).MaintenanceAmounts()
			for i, w := range tt.want {
				if !got[i].Equal(d(w)) {
					t.Errorf("tier %d: amount %s, want %s", i+1, got[i], w)
				}
			}
		})
	}
}

// TestMaintenanceMarginIsContinuousAcrossTiers: one contract across a band
// edge adds one contract's margin, not a jump (the issue saw 2071.95 →
// 2590.44 USDT at 5200 → 5201 contracts).
func TestMaintenanceMarginIsContinuousAcrossTiers(t *testing.T) {
	tests := []struct {
		name       string
		tiers      []venueapi.Tier
		c          Contract
		size, next string // contracts on both sides of an edge
		mm, mmNext string
	}{
		// 5200 × 0.004 × 99.6135 = 2071.9608; (5201 × 0.005 − 5.2) × 99.6135 = 2072.4588675
		{"BTC-USDT at its first edge", btcLadder, btcMark, "5200", "5201", "2071.9608", "2072.4589"},
		// 21000 × 0.005 − 5.2 = 99.8 cont; 21001 × 0.01 − 110.2 = 99.81 cont
		{"BTC-USDT at its second edge", btcLadder, btcMark, "21000", "21001", "9941.4273", "9942.4235"},
		// 555 × 180 = 99900 USDT × 0.0065 = 649.35; 556 × 180 = 100080 × 0.01 − 350 = 650.8
		{"SOL-USDT at its first edge", solLadder, solMark, "555", "556", "649.35", "650.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLadder(t, tt.tiers)
			a, err := Calculate(l, nil, tt.c, d(tt.size), Contracts, d("1"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := Calculate(l, nil, tt.c, d(tt.next), Contracts, d("1"))
			if err != nil {
				t.Fatal(err)
			}
			if b.TierIndex != a.TierIndex+1 {
				t.Fatalf("tiers %d and %d: not across an edge", a.Tier.Tier, b.Tier.Tier)
			}
			if !a.Margin.Equal(d(tt.mm)) || !b.Margin.Equal(d(tt.mmNext)) {
				t.Errorf("margins %s → %s, want %s → %s", a.Margin, b.Margin, tt.mm, tt.mmNext)
			}
			// the step is at most one contract's worth at the higher rate
			step := b.MarginExact.Sub(a.MarginExact)
			if one := tt.c.ContractValue().Mul(b.Tier.MaintenanceMarginRate); step.GreaterThan(one) || step.IsNegative() {
				t.Errorf("one contract moved the margin by %s, more than %s", step, one)
			}
		})
	}
}

// TestLimitsAtTheTypedLeverage: a position fits the account's limits at the
// leverage typed, not at the account's own.
func TestLimitsAtTheTypedLeverage(t *testing.T) {
	account := &venueapi.PositionLimit{BuyLimit: d("520000"), SellLimit: d("3000"), LeverRate: 10}
	tests := []struct {
		name            string
		size, leverage  string
		limit           *venueapi.PositionLimit
		long, short     Fit
		longLimit       string
		byTiers, noTier bool
	}{
		// tier 2 allows 100×: at 150× only tier 1 (to 5200 cont) does
		{"a tier-2 position at 150× exceeds the tiers' top", "6000", "150", account, Exceeds, Exceeds, "5200", true, false},
		{"the same position at 100× fits the long limit", "6000", "100", account, Fits, Exceeds, "21000", true, false},
		{"at 10× the account's own limit binds", "6000", "10", account, Fits, Exceeds, "520000", false, false},
		{"at 250× no tier allows anything", "10", "250", account, Exceeds, Exceeds, "0", false, true},
		{"without the account's limits the tiers' top still refuses", "6000", "150", nil, Exceeds, Exceeds, "5200", true, false},
		{"without the account's limits a position under the top is unknown", "100", "150", nil, FitUnknown, FitUnknown, "5200", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Calculate(mustLadder(t, btcLadder), tt.limit, btcMark, d(tt.size), Contracts, d(tt.leverage))
			if err != nil {
				t.Fatal(err)
			}
			if r.Long.Fit != tt.long || r.Short.Fit != tt.short {
				t.Errorf("long %v short %v, want %v %v", r.Long.Fit, r.Short.Fit, tt.long, tt.short)
			}
			if !r.Long.Limit.Equal(d(tt.longLimit)) || r.Long.ByTiers != tt.byTiers || r.Long.NoTier != tt.noTier {
				t.Errorf("long limit %+v, want %s by tiers %v, no tier %v", r.Long, tt.longLimit, tt.byTiers, tt.noTier)
			}
		})
	}
}

func TestLiquidations(t *testing.T) {
	tests := []struct {
		name                string
		tiers               []venueapi.Tier
		c                   Contract
		size, lever         string
		entry, margin       string
		long, short         string // "none": no liquidation price
		longAtOnce, shortAt bool
	}{
		// n·f·E = 518089.8135; M = 25904.4907 (the initial margin at 20×);
		// long (518089.8135 − 25904.4907) / (0.001 × (5201 − 26.005 + 5.2)) = 95012.89…, up to the tick;
		// short (518089.8135 + 25904.4907) / (0.001 × (5201 + 26.005 − 5.2)) = 104177.44…, down
		{"BTC-USDT in tier 2 at 20×", btcLadder, btcMark, "5201", "20", "99613.5", "25904.4907", "95012.9", "104177.4", false, false},
		// n·E = 108000, M = 4320 (25×), A = 350 USDT:
		// long (108000 − 4320 − 350) / (600 − 6) = 173.956…; short (108000 + 4320 + 350) / 606 = 185.924…
		{"SOL-USDT in tier 2 at 25×", solLadder, solMark, "600", "25", "180", "4320", "173.957", "185.924", false, false},
		// long: 108000 − 108000 − 350 < 0; short (108000 + 108000 + 350) / 606 = 357.0132…
		{"a long with margin for a fall to zero has none", solLadder, solMark, "600", "1", "180", "108000", "none", "357.013", false, false},
		// MM at entry is 730 USDT; 500 put up is below it: long 107150 / 594 = 180.3872…, short 108850 / 606 = 179.6204…
		{"a margin under the maintenance margin liquidates at once", solLadder, solMark, "600", "25", "180", "500", "180.388", "179.62", true, true},
		// long (108000 − M − 350) / 594 with M = 4320.135999999999999999999999406
		// = 173.956 + 1e-30 exactly: past the tick by less than 24 places'
		// rounding keeps, so still up to the next tick, as the exact figure
		// says; the short's (112670.135…) / 606 = 185.924…, down
		{"a price past a tick by a hair rounds from the exact figure", solLadder, solMark, "600", "25", "180", "4320.135999999999999999999999406", "173.957", "185.924", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLadder(t, tt.tiers)
			r, err := Calculate(l, nil, tt.c, d(tt.size), Contracts, d(tt.lever))
			if err != nil {
				t.Fatal(err)
			}
			long, short := Liquidations(l, r, tt.c, d(tt.entry), d(tt.margin))
			if tt.long == "none" {
				if !long.None {
					t.Errorf("long liquidation %s, want none", long.Price)
				}
			} else if long.None || !long.Price.Equal(d(tt.long)) || long.AtOnce != tt.longAtOnce {
				t.Errorf("long %+v, want %s (at once %v)", long, tt.long, tt.longAtOnce)
			}
			if short.None || !short.Price.Equal(d(tt.short)) || short.AtOnce != tt.shortAt {
				t.Errorf("short %+v, want %s (at once %v)", short, tt.short, tt.shortAt)
			}
		})
	}
}

// TestUSDTSizeBuysNoMoreThanItPays: a USDT size, and a USDT ladder's top,
// buy the whole contracts they pay for, exactly, even when the quotient is
// within a rounding of a whole number (shopspring's Div rounds to 16 places).
func TestUSDTSizeBuysNoMoreThanItPays(t *testing.T) {
	// 5 × 99.6135 = 498.0675: a hair less buys 4 contracts.
	p, err := NewPosition(d("498.0674999999999999999"), USDT, btcMark)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Contracts.Equal(d("4")) || !p.USDT.Equal(d("398.454")) {
		t.Errorf("NewPosition(498.0674999999999999999 USDT) = %s cont, %s USDT; want 4 cont, 398.454 USDT", p.Contracts, p.USDT)
	}
	// 1000 USDT at 0.1000000000000000000001 a contract is 9999 whole contracts.
	tiny := Contract{FaceValue: d("1"), MarkPrice: d("0.1000000000000000000001")}
	m := mustLadder(t, usdtTiers).MaxPosition(d("100"), tiny)
	if !m.Position.Contracts.Equal(d("9999")) || m.Position.USDT.GreaterThan(d("1000")) {
		t.Errorf("MaxPosition at 100× = %s cont, %s USDT; want 9999 cont within 1000 USDT", m.Position.Contracts, m.Position.USDT)
	}
}

// TestLiquidationAtOnceIsTheMarginsNotTheTicks: "at once" says the margin is
// below the maintenance margin at the entry; a margin above it whose price
// rounds onto the entry (towards it, by the tick) is not liquidated at once.
func TestLiquidationAtOnceIsTheMarginsNotTheTicks(t *testing.T) {
	l := mustLadder(t, btcLadder)
	// 5200 cont, tier 1: MM at 99613.5 is 5200 × 0.004 × 99.6135 = 2071.9608.
	r, err := Calculate(l, nil, btcMark, d("5200"), Contracts, d("20"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                  string
		margin                string
		longAtOnce, shortOnce bool
	}{
		// long (517990.2 − 2072) / 5.1792 = 99613.4922…, up to 99613.5;
		// short (517990.2 + 2072) / 5.2208 = 99613.5074…, down to 99613.5
		{"a margin just above the maintenance margin", "2072", false, false},
		{"a margin equal to the maintenance margin", "2071.9608", true, true},
		{"a margin just below it", "2071.96", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			long, short := Liquidations(l, r, btcMark, d("99613.5"), d(tt.margin))
			if long.AtOnce != tt.longAtOnce || short.AtOnce != tt.shortOnce {
				t.Errorf("margin %s: long %+v short %+v, want at once %v / %v", tt.margin, long, short, tt.longAtOnce, tt.shortOnce)
			}
		})
	}
}

// TestLiquidationNeverPassesAnOffTickEntry: rounding to the tick is towards
// the entry (docs/calculator.md#rounding), so a margin above the maintenance
// margin never shows a long liquidated above its entry or a short below it,
// even at an entry between two ticks (an average of fills).
func TestLiquidationNeverPassesAnOffTickEntry(t *testing.T) {
	l := mustLadder(t, btcLadder)
	// 5201 cont, tier 2: MM at 99613.55 is (5201 × 0.005 − 5.2) × 0.001 × 99613.55 = 2072.45990775
	r, err := Calculate(l, nil, btcMark, d("5201"), Contracts, d("20"))
	if err != nil {
		t.Fatal(err)
	}
	entry := d("99613.55")
	tests := []struct {
		name        string
		margin      string
		long, short string
	}{
		// long 518090.07… − 2072.46 over 5.180195: just under the entry, which
		// is between the ticks 99613.5 and 99613.6; the short just over it
		{"a margin a hair above the maintenance margin", "2072.46", "99613.55", "99613.55"},
		{"a margin half a USDT above it", "2072.5", "99613.55", "99613.55"},
		{"a margin a tick's worth above it", "2073", "99613.5", "99613.6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			long, short := Liquidations(l, r, btcMark, entry, d(tt.margin))
			if long.AtOnce || short.AtOnce {
				t.Fatalf("margin %s is above the maintenance margin at the entry: long %+v short %+v, neither at once", tt.margin, long, short)
			}
			if !long.Price.Equal(d(tt.long)) || long.Price.GreaterThan(entry) {
				t.Errorf("long %s at entry %s, want %s: a long is not liquidated above its entry", long.Price, entry, tt.long)
			}
			if !short.Price.Equal(d(tt.short)) || short.Price.LessThan(entry) {
				t.Errorf("short %s at entry %s, want %s: a short is not liquidated below its entry", short.Price, entry, tt.short)
			}
		})
	}
}
