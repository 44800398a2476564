package components

import (
	"testing"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/venueapi"
)

func TestEmbedSnippetsCarryTheViewAndOnlyWhatTheRouteTakes(t *testing.T) {
	v := View{Contract: "ETH-USDT", Period: venueapi.Period15Min, UTC: true, Theme: "dark"}
	base := "http://127.0.0.1:8080"
	tests := []struct {
		name  string
		route string
		v     View
		o     snippetOptions
		want  string
	}{
		{"the chart, with its period and zone", "chart", v, snippetOptions{},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=ETH-USDT&amp;period=15min&amp;theme=dark&amp;tz=utc" title="Riskchart chart of ETH-USDT" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
		{"the chart without pickers, automatic theme", "chart", View{Contract: "BTC-USDT-CQ", Period: venueapi.Period1Day, Theme: "auto"}, snippetOptions{noPicker: true},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=BTC-USDT-CQ&amp;controls=0&amp;period=1day" title="Riskchart chart of BTC-USDT-CQ" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
		{"the chart with the studies, scale and style on show", "chart", View{Contract: "ETH-USDT", Period: venueapi.Period15Min, Theme: "auto",
			Look: Look{Scale: chartopt.ScaleLog, Kind: chartopt.KindLine, Indicators: "ma:7,rsi"}}, snippetOptions{},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=ETH-USDT&amp;indicators=ma%3A7%2Crsi&amp;period=15min&amp;scale=log&amp;style=line" title="Riskchart chart of ETH-USDT" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
		{"a panel takes its zone but no period, look or link unless given", "tiers", View{Contract: "ETH-USDT", Period: venueapi.Period15Min, UTC: true, Theme: "dark",
			Look: Look{Scale: chartopt.ScaleLog, Indicators: "rsi"}}, snippetOptions{},
			`<iframe src="http://127.0.0.1:8080/embed/tiers?contract_code=ETH-USDT&amp;theme=dark&amp;tz=utc" title="Riskchart tiers of ETH-USDT" style="width:100%;height:420px;border:0" loading="lazy"></iframe>`},
		{"a panel with a signed link, escaped", "limits", v, snippetOptions{link: `ab.c"d<`},
			`<iframe src="http://127.0.0.1:8080/embed/limits?contract_code=ETH-USDT&amp;embed=ab.c%22d%3C&amp;theme=dark&amp;tz=utc" title="Riskchart limits of ETH-USDT" style="width:100%;height:320px;border:0" loading="lazy"></iframe>`},
		{"the chart never carries the link", "chart", v, snippetOptions{link: "tok.en"},
			`<iframe src="http://127.0.0.1:8080/embed/chart?contract_code=ETH-USDT&amp;period=15min&amp;theme=dark&amp;tz=utc" title="Riskchart chart of ETH-USDT" style="width:100%;height:480px;border:0" loading="lazy"></iframe>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := embedSnippet(base, tt.route, tt.v, tt.o); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
