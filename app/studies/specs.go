package studies

import (
	"slices"
	"strconv"
	"strings"

	"github.com/riskchart/riskchart/venueapi"
)

// Kind names a study as the indicators parameter writes it.
type Kind string

// The studies this package computes (docs/studies.md defines each).
const (
	MA    Kind = "ma"     // simple moving average of the close, ma:N
	EMA   Kind = "ema"    // exponential moving average of the close, ema:N
	BOLL  Kind = "boll"   // Bollinger bands 20, 2
	VolMA Kind = "vol_ma" // simple moving average of the volume, vol_ma or vol_ma:N
	MACD  Kind = "macd"   // MACD 12 26 9
	RSI   Kind = "rsi"    // RSI 14, Wilder's smoothing
)

// Fixed parameters of the studies that take no period.
const (
	BollPeriod   = 20
	BollWidth    = 2 // standard deviations either side of the middle band
	VolMAPeriod  = 20
	MACDFast     = 12
	MACDSlow     = 26
	MACDSignal   = 9
	RSIPeriod    = 14
	MaxPeriod    = 500 // longest ma, ema or vol_ma period
	MaxSpecs     = 16  // most studies in one indicators list, after duplicates are removed
	paramName    = "indicators"
	periodRule   = "needs a period 1..500"
	noPeriodRule = "takes no period"
)

// Spec is one study in a list: its kind and, for ma, ema and vol_ma, its
// period. Period is 0 for the others, and 0 for vol_ma means VolMAPeriod.
type Spec struct {
	Kind   Kind
	Period int
}

// period is the number of candles the study averages over (the longest
// average, for MACD).
func (s Spec) period() int {
	switch {
	case s.Kind == BOLL:
		return BollPeriod
	case s.Kind == VolMA && s.Period == 0:
		return VolMAPeriod
	case s.Kind == RSI:
		return RSIPeriod
	case s.Kind == MACD:
		return MACDSlow
	case s.Kind == MA || s.Kind == EMA || s.Kind == VolMA:
		return s.Period
	}
	return 0 // not a study
}

// String is the spec as ParseSpecs reads it: "ma:7", "boll", "vol_ma:5".
func (s Spec) String() string {
	if s.Period == 0 {
		return string(s.Kind)
	}
	return string(s.Kind) + ":" + strconv.Itoa(s.Period)
}

// Label is the study's name in the legend: "MA 7", "EMA 99", "BOLL 20 2",
// "VOL MA 20", "MACD 12 26 9", "RSI 14".
func (s Spec) Label() string {
	switch s.Kind {
	case BOLL:
		return "BOLL " + strconv.Itoa(BollPeriod) + " " + strconv.Itoa(BollWidth)
	case MACD:
		return "MACD " + strconv.Itoa(MACDFast) + " " + strconv.Itoa(MACDSlow) + " " + strconv.Itoa(MACDSignal)
	case VolMA:
		return "VOL MA " + strconv.Itoa(s.period())
	}
	return strings.ToUpper(string(s.Kind)) + " " + strconv.Itoa(s.period())
}

// ParseSpecs reads the indicators parameter: comma-separated studies such as
// "ma:7,ma:25,ema:99,boll,vol_ma,macd,rsi", any subset in any order. The order
// is kept and a repeated study is dropped; "vol_ma:20" is the same study as
// "vol_ma". An empty string is no studies. Errors are *venueapi.ParamError
// naming indicators and the rule broken.
func ParseSpecs(s string) ([]Spec, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var specs []Spec
	for item := range strings.SplitSeq(s, ",") {
		spec, err := parseSpec(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		if slices.Contains(specs, spec) {
			continue
		}
		if len(specs) == MaxSpecs {
			return nil, &venueapi.ParamError{Param: paramName, Rule: "at most " + strconv.Itoa(MaxSpecs) + " different studies", Value: s}
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

func parseSpec(item string) (Spec, error) {
	if item == "" {
		return Spec{}, &venueapi.ParamError{Param: paramName, Rule: "studies are separated by single commas, with none empty"}
	}
	name, arg, hasArg := strings.Cut(item, ":")
	kind := Kind(strings.ToLower(strings.TrimSpace(name)))
	arg = strings.TrimSpace(arg)
	switch kind {
	case MA, EMA, VolMA:
		if !hasArg && kind == VolMA {
			return Spec{Kind: VolMA}, nil
		}
		n, err := strconv.Atoi(arg)
		if !hasArg || err != nil || n < 1 || n > MaxPeriod || arg != strconv.Itoa(n) {
			return Spec{}, &venueapi.ParamError{Param: paramName, Rule: string(kind) + " " + periodRule + ": " + string(kind) + ":7", Value: item}
		}
		if kind == VolMA && n == VolMAPeriod {
			n = 0 // one spelling for the default, so that duplicates are seen
		}
		return Spec{Kind: kind, Period: n}, nil
	case BOLL, MACD, RSI:
		if hasArg {
			return Spec{}, &venueapi.ParamError{Param: paramName, Rule: string(kind) + " " + noPeriodRule + ": " + string(kind), Value: item}
		}
		return Spec{Kind: kind}, nil
	}
	known := []string{string(MA), string(EMA), string(BOLL), string(VolMA), string(MACD), string(RSI)}
	return Spec{}, &venueapi.ParamError{Param: paramName, Rule: "unknown study; known: " + strings.Join(known, ", "), Value: item}
}

// FormatSpecs writes specs as ParseSpecs reads them, in canonical form.
func FormatSpecs(specs []Spec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// OscillatorPanes is how many panes of their own under the volume the
// studies of specs draw in: one for MACD, one for RSI.
func OscillatorPanes(specs []Spec) int {
	n := 0
	for _, k := range []Kind{MACD, RSI} {
		if slices.ContainsFunc(specs, func(s Spec) bool { return s.Kind == k }) {
			n++
		}
	}
	return n
}

// Params are the numbers the study is computed with, as docs/studies.md
// names them: the period of ma, ema and vol_ma; BOLL's period and width;
// MACD's fast, slow and signal periods; RSI's period.
func (s Spec) Params() []int {
	switch s.Kind {
	case BOLL:
		return []int{BollPeriod, BollWidth}
	case MACD:
		return []int{MACDFast, MACDSlow, MACDSignal}
	}
	return []int{s.period()}
}

// Lines are the lines the study draws, in the order a Set's Lines and At
// give them, without values.
func (s Spec) Lines() []Line {
	return newStudy(s).lines()
}

// The decimals the legend writes a line's values with (LegendDecimals).
const (
	legendPlaces        = 2 // the volume and RSI panes
	legendFiner         = 2 // the price and MACD panes: more than the contract's
	legendPlacesUnknown = 8 // the price and MACD panes of a contract whose decimals are not known
)

// LegendPlaces is LegendDecimals as data: a value of pane p is written with
// the contract's decimals and finer more when finer > 0 and they are known,
// else with places.
func LegendPlaces(p Pane) (places, finer int32) {
	if p == PaneRSI || p == PaneVolume {
		return legendPlaces, 0
	}
	return legendPlacesUnknown, legendFiner
}

// LegendDecimals is how many decimals the legend writes a value of pane p
// with, for a contract quoted to decimals (< 0: not known): two on the
// volume and RSI panes; on the price and MACD panes a little finer than the
// contract's tick, and eight when that is not known.
func LegendDecimals(p Pane, decimals int32) int32 {
	places, finer := LegendPlaces(p)
	if finer > 0 && decimals >= 0 {
		return decimals + finer
	}
	return places
}
