package candles

import "github.com/riskchart/riskchart/venueapi"

// Span is the candle ids from Lo to Hi, both included; empty when Lo > Hi.
type Span struct{ Lo, Hi int64 }

// none is the empty span.
func none() Span { return Span{Lo: 1, Hi: 0} }

func (sp Span) contains(id int64) bool { return sp.Lo <= id && id <= sp.Hi }

// Set is a set of candle ids of one period, kept as sorted spans that
// neither overlap nor touch, so that one span vouches for a whole run.
// The zero Set is not usable: make one with NewSet.
type Set struct {
	period venueapi.Period
	spans  []Span
}

// NewSet returns the empty set of candle ids of p.
func NewSet(p venueapi.Period) Set { return Set{period: p} }

// Spans returns the set's spans, ascending; the caller must not change them.
func (s *Set) Spans() []Span { return s.spans }

// Last returns the span of the newest ids, if any.
func (s *Set) Last() (Span, bool) {
	if len(s.spans) == 0 {
		return Span{}, false
	}
	return s.spans[len(s.spans)-1], true
}

// Covers reports whether every id of [lo, hi] is in the set.
func (s *Set) Covers(lo, hi int64) bool {
	for _, sp := range s.spans {
		if sp.Lo <= lo && hi <= sp.Hi {
			return true
		}
	}
	return false
}

// Gaps returns the runs of ids of [lo, hi] not in the set, ascending.
func (s *Set) Gaps(lo, hi int64) []Span {
	p := s.period
	var out []Span
	at := lo
	for _, sp := range s.spans {
		if sp.Hi < at || sp.Lo > hi {
			continue
		}
		if sp.Lo > at {
			out = append(out, Span{at, p.Prev(sp.Lo)})
		}
		at = p.Next(sp.Hi)
	}
	if at <= hi {
		out = append(out, Span{at, hi})
	}
	return out
}

// Add puts the ids of n into the set, joining spans it overlaps or touches.
func (s *Set) Add(n Span) {
	if n.Lo > n.Hi {
		return
	}
	p := s.period
	out := make([]Span, 0, len(s.spans)+1)
	for _, sp := range s.spans {
		switch {
		case p.Next(sp.Hi) < n.Lo: // wholly before
			out = append(out, sp)
		case p.Next(n.Hi) < sp.Lo: // wholly after
			out = append(out, n)
			n = sp
		default:
			n = Span{min(n.Lo, sp.Lo), max(n.Hi, sp.Hi)}
		}
	}
	s.spans = append(out, n)
}

// Drop takes the ids of d out of the set, splitting a span it falls within.
func (s *Set) Drop(d Span) {
	if d.Lo > d.Hi {
		return
	}
	p := s.period
	out := make([]Span, 0, len(s.spans)+1)
	for _, sp := range s.spans {
		if sp.Hi < d.Lo || d.Hi < sp.Lo {
			out = append(out, sp)
			continue
		}
		if sp.Lo < d.Lo {
			out = append(out, Span{sp.Lo, p.Prev(d.Lo)})
		}
		if d.Hi < sp.Hi {
			out = append(out, Span{p.Next(d.Hi), sp.Hi})
		}
	}
	s.spans = out
}

// Keep takes out of the set the ids at or below cut that no span of kept
// holds: what is left is the ids above cut and those of kept.
func (s *Set) Keep(cut int64, kept []Span) {
	old := s.spans
	s.spans = nil
	for _, sp := range old {
		s.Add(Span{max(sp.Lo, s.period.Next(cut)), sp.Hi})
		for _, k := range kept {
			s.Add(Span{max(sp.Lo, k.Lo), min(sp.Hi, k.Hi, cut)})
		}
	}
}
