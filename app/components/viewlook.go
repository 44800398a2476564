package components

import (
	"net/url"
	"strings"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/studies"
)

// Look is how a view draws its prices (docs/architecture.md: the chart's
// looks): the price scale and the chart style, each "" for the default.
type Look struct {
	Scale chartopt.Scale
	Kind  chartopt.Kind
	// Indicators are the studies drawn, as studies.FormatSpecs writes them.
	Indicators string
}

// OscillatorPanes is how many panes of their own the look's studies draw
// in under the volume (MACD, RSI).
func (l Look) OscillatorPanes() int {
	specs, _ := studies.ParseSpecs(l.Indicators) // checked when read
	return studies.OscillatorPanes(specs)
}

// lookFromQuery reads ?scale=&style= from q. A value the chart cannot draw
// is not dropped silently: it comes back as a notice naming the parameter,
// the value and the rule, and the default is drawn instead.
func lookFromQuery(q url.Values) (l Look, notice string) {
	var notices []string
	if s := q.Get("scale"); s != "" {
		if sc, err := chartopt.ParseScale(s); err != nil {
			notices = append(notices, err.Error())
		} else {
			l.Scale = sc
		}
	}
	if s := q.Get("style"); s != "" {
		if k, err := chartopt.ParseKind(s); err != nil {
			notices = append(notices, err.Error())
		} else {
			l.Kind = k
		}
	}
	var bad []string
	l.Indicators, bad = indicatorsFromQuery(q.Get("indicators"))
	notices = append(notices, bad...)
	if len(notices) > 0 {
		notice = "Not shown: " + strings.Join(notices, "; ") + "."
	}
	return l, notice
}

// setLook writes the look into q, leaving out the defaults.
func (l Look) setLook(q url.Values) {
	if l.Scale != chartopt.ScaleLinear {
		q.Set("scale", string(l.Scale))
	}
	if l.Kind != chartopt.KindCandles {
		q.Set("style", string(l.Kind))
	}
	if l.Indicators != "" {
		q.Set("indicators", l.Indicators)
	}
}
