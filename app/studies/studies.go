// Package studies computes chart studies (moving averages, Bollinger bands,
// MACD, RSI) from candles, in exact decimals, and keeps them up to date as
// the series changes at either end. docs/studies.md defines every study, the
// rounding and the treatment of the first candles.
package studies

import (
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/venueapi"
)

// Pane is the part of the chart a line is drawn in.
type Pane int

// The panes, top to bottom.
const (
	PanePrice Pane = iota
	PaneVolume
	PaneMACD
	PaneRSI
)

// Line is one drawn series of a study.
type Line struct {
	Name   string // "MA 7", "BOLL upper", "MACD DIF", "MACD hist", "RSI 14"
	Pane   Pane
	Bars   bool                  // drawn as bars (the MACD histogram)
	Values []decimal.NullDecimal // one per candle; Valid is false where the study has too little history
}

// Value is one line's value at one candle, for the legend.
type Value struct {
	Name  string
	Value decimal.NullDecimal
}

// Change tells which values an Update changed: every line's values from
// index From on (in the new series) are new, and those before it are as
// they were. From equals the series' length when nothing changed, or when
// candles were only dropped from the end.
type Change struct{ From int }

// Set is the computed state of a list of studies over a candle series. It is
// not safe for concurrent use.
type Set struct {
	specs   []Spec
	studies []study
	pts     []point // the inputs the values were computed from
}

// point is what the studies read from a candle.
type point struct {
	id         int64
	close, vol decimal.Decimal
	c, v       num // close and vol as running numbers
}

func pointOf(c *venueapi.Candle) point {
	return point{id: c.ID, close: c.Close, vol: c.Vol, c: numOf(c.Close), v: numOf(c.Vol)}
}

// same reports whether c is the candle p was made from, as far as the
// studies can tell.
func (p *point) same(c *venueapi.Candle) bool {
	// Comparing the decimals' representation first skips the big-number
	// comparison for the candles the caller handed back unchanged.
	return p.id == c.ID && (p.close == c.Close || p.close.Equal(c.Close)) && (p.vol == c.Vol || p.vol.Equal(c.Vol))
}

// study is one study's state: its values at indices 0..len-1.
type study interface {
	// push computes the values at index len, reading pts[0..len].
	push(pts []point)
	// grow makes room for n more values.
	grow(n int)
	// truncate forgets the values at indices n and later.
	truncate(n int)
	// prepend brings the values up to date with pts, the old series'
	// unchanged start with p candles before it: it keeps the old values
	// that do not depend on the new candles and computes the others. It
	// reports false, changing nothing, if every value depends on all
	// earlier history.
	prepend(p int, pts []point) bool
	lines() []Line
}

// NewSet returns an empty Set for specs (as ParseSpecs returns them; a
// spec it would refuse, such as ma:0, gets no lines).
func NewSet(specs []Spec) *Set {
	s := &Set{specs: specs}
	for _, spec := range specs {
		s.studies = append(s.studies, newStudy(spec))
	}
	return s
}

// Specs returns the studies the set computes.
func (s *Set) Specs() []Spec { return s.specs }

// Reset computes every study over candles afresh.
func (s *Set) Reset(candles []venueapi.Candle) {
	s.pts = s.pts[:0]
	for i := range candles {
		s.pts = append(s.pts, pointOf(&candles[i]))
	}
	for _, st := range s.studies {
		st.truncate(0)
		s.extend(st, 0)
	}
}

// extend computes st's values from index from to the end of the series.
func (s *Set) extend(st study, from int) {
	st.truncate(from)
	st.grow(len(s.pts) - from)
	for i := from; i < len(s.pts); i++ {
		st.push(s.pts[:i+1])
	}
}

// Update brings the studies up to date with candles, the whole series after a
// change, and returns where the values changed. It compares candles with the
// series it last computed (by ID, close and volume) and computes only what
// depends on what changed:
//   - the last candle replaced (a live update): the values at the last index,
//     each in O(1) from the state kept before it (BOLL's deviation reads its
//     20 closes);
//   - candles appended, with or without the old last one replaced: the new
//     values only;
//   - candles prepended (scrolling back): for MA, BOLL and VOL MA the new
//     values and the first period-1 old ones, whose windows now fill; EMA,
//     MACD and RSI depend on all earlier history, so every value is
//     recomputed;
//   - any other change: from the first changed candle on, or, if the series
//     no longer contains the old first candle, everything (as Reset).
func (s *Set) Update(candles []venueapi.Candle) Change {
	old := s.pts
	if len(old) == 0 || len(candles) == 0 {
		s.Reset(candles)
		return Change{From: 0}
	}
	p := 0 // candles prepended
	for p < len(candles) && candles[p].ID < old[0].id {
		p++
	}
	if p == len(candles) || candles[p].ID != old[0].id {
		s.Reset(candles)
		return Change{From: 0}
	}
	j := 0 // old candles unchanged
	for j < len(old) && p+j < len(candles) && old[j].same(&candles[p+j]) {
		j++
	}
	if p == 0 {
		if j == len(old) && j == len(candles) {
			return Change{From: j}
		}
		s.pts = s.pts[:j]
		for i := j; i < len(candles); i++ {
			s.pts = append(s.pts, pointOf(&candles[i]))
		}
		for _, st := range s.studies {
			s.extend(st, j)
		}
		return Change{From: j}
	}
	pts := make([]point, len(candles))
	for i := range candles {
		pts[i] = pointOf(&candles[i])
	}
	s.pts = pts
	for _, st := range s.studies {
		if !st.prepend(p, pts[:p+j]) {
			st.truncate(0)
		}
		s.extend(st, lenOf(st))
	}
	return Change{From: 0}
}

func lenOf(st study) int {
	ls := st.lines()
	if len(ls) == 0 {
		return 0
	}
	return len(ls[0].Values)
}

// Lines returns every study's lines, in the order of the specs. The slices
// are the set's own: read them before the next Reset or Update.
func (s *Set) Lines() []Line {
	var out []Line
	for _, st := range s.studies {
		out = append(out, st.lines()...)
	}
	return out
}

// At returns every line's value at candle i, in the order of Lines; values
// outside the series are invalid.
func (s *Set) At(i int) []Value {
	var out []Value
	for _, st := range s.studies {
		for _, l := range st.lines() {
			v := Value{Name: l.Name}
			if i >= 0 && i < len(l.Values) {
				v.Value = l.Values[i]
			}
			out = append(out, v)
		}
	}
	return out
}
