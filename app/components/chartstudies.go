package components

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/app/studies"
)

// indicatorsFromQuery reads ?indicators= item by item, so that one bad
// study is named in the notice and the others are still drawn; it returns
// the good ones in canonical form (studies.FormatSpecs).
func indicatorsFromQuery(raw string) (canonical string, notices []string) {
	var specs []studies.Spec
	for item := range strings.SplitSeq(raw, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		got, err := studies.ParseSpecs(item)
		if err != nil {
			notices = append(notices, "indicators "+strings.TrimSpace(item)+" ("+err.Error()+")")
			continue
		}
		specs = append(specs, got...)
	}
	// Once more as a list: duplicates go, and the list's own limit applies.
	all, err := studies.ParseSpecs(studies.FormatSpecs(specs))
	if err != nil {
		return "", append(notices, err.Error())
	}
	return studies.FormatSpecs(all), notices
}

// studyLines are the lines the view's studies draw, for the frame.
func (k *KLineChart) studyLines() []chartopt.StudyLine {
	k.ensureStudies()
	var out []chartopt.StudyLine
	for _, l := range k.studySet.Lines() {
		out = append(out, chartopt.StudyLine{Name: l.Name, Pane: l.Pane, Bars: l.Bars})
	}
	return out
}

// ensureStudies makes the set of the view's studies when the view changed it.
func (k *KLineChart) ensureStudies() {
	if k.studySet != nil && k.studySpecs == k.Look.Indicators {
		return
	}
	specs, _ := studies.ParseSpecs(k.Look.Indicators) // checked by the view
	k.studySet, k.studySpecs = studies.NewSet(specs), k.Look.Indicators
}

// loadStudies computes the studies over every held candle and hands the
// chart their arrays (a full draw, a prepend).
func (k *KLineChart) loadStudies(reset bool) {
	k.ensureStudies()
	if reset {
		k.studySet.Reset(k.candles)
	} else {
		k.studySet.Update(k.candles)
	}
	lines := k.studySet.Lines()
	var points []byte
	if len(lines) > 0 {
		points = make([]byte, 0, chartopt.PointSize*len(lines)*len(lines[0].Values))
	}
	for _, l := range lines {
		points = chartopt.AppendPoints(points, l.Values, 0)
	}
	k.chart.SetLines(points, len(lines))
}

// liveStudies brings the studies up to date after a live update, in place:
// only the values from the first changed candle on cross to the chart.
func (k *KLineChart) liveStudies() {
	if k.studySet == nil || len(k.studySet.Specs()) == 0 {
		return
	}
	from := k.studySet.Update(k.candles).From
	var tails []byte
	for _, l := range k.studySet.Lines() {
		tails = chartopt.AppendPoints(tails, l.Values, from)
	}
	k.chart.SetLineTails(from, tails)
}

// studyLegend is the studies' values at candle i, for the legend.
func (k *KLineChart) studyLegend(i int) app.UI {
	if k.studySet == nil || len(k.studySet.Specs()) == 0 {
		return nil
	}
	lines := k.studySet.Lines()
	vals := k.studySet.At(i)
	return app.Range(vals).Slice(func(j int) app.UI {
		v := "—"
		if vals[j].Value.Valid {
			v = chartopt.Group(vals[j].Value.Decimal.StringFixed(studies.LegendDecimals(lines[j].Pane, k.Decimals)))
		}
		return app.Div().Class("legend-item legend-study").Body(app.Dt().Text(vals[j].Name), app.Dd().DataSet("study", vals[j].Name).Text(v))
	})
}
