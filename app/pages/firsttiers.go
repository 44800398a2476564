package pages

import (
	"net/url"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/app/embedmsg"
	"github.com/riskchart/riskchart/app/embedscope"
)

// TiersShown is the tier ladder a page shows when it opens: the server
// prerenders it when it holds those tiers and the viewer may see them
// (docs/architecture.md, "The page before the app").
type TiersShown struct {
	Contract string
	// Embedded marks an embed, whose panel is judged by the signed link in
	// its URL (EmbedLink, "" for none) and not by a viewer token.
	Embedded  bool
	EmbedLink string
	// UTC is the view's zone (?tz=utc), in which the ladder's fetch time
	// is written.
	UTC bool
}

// LimitsWithheld reports whether the page is an embed whose link surely
// does not grant the account's limits, which carry the calculator's mark
// price: its panel shows them refused from the first render, as
// RiskPanel's does.
func (s TiersShown) LimitsWithheld() bool {
	return api.Withheld(s.Embedded, s.EmbedLink, embedscope.PanelLimits, s.Contract) != nil
}

// TiersOf is the ladder the page at u shows, read by the page's own rules
// (its route and its OnNav); ok is false for a page without one (/limits,
// a chart embed, a malformed contract, a path that is no page).
func TiersOf(u *url.URL) (shown TiersShown, ok bool) {
	if p, has := pageAt(u.Path).(tiersPage); has {
		return p.tiersShown(u)
	}
	return TiersShown{}, false
}

// tiersPage is a page that can show a tier ladder.
type tiersPage interface {
	tiersShown(u *url.URL) (TiersShown, bool)
}

func (p *ChartPage) tiersShown(u *url.URL) (TiersShown, bool) {
	v := components.ViewFromURL(u)
	return TiersShown{Contract: v.Contract, UTC: v.UTC}, true
}

func (p *RiskPage) tiersShown(u *url.URL) (TiersShown, bool) {
	code, err := riskPageContract(u)
	return TiersShown{Contract: code, UTC: components.ViewFromURL(u).UTC}, err == nil && p.show == "tiers"
}

func (e *EmbedPage) tiersShown(u *url.URL) (TiersShown, bool) {
	v := components.ViewFromURL(u)
	return TiersShown{Contract: v.Contract, Embedded: true, EmbedLink: embedLink(u.Query()), UTC: v.UTC},
		e.kind == embedmsg.RouteTiers
}
