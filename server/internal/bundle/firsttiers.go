package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/app/components"
	"github.com/riskchart/riskchart/app/pages"
	"github.com/riskchart/riskchart/server/internal/firstdata"
	"github.com/riskchart/riskchart/venueapi"
)

// tierLadder is the tiers the server holds for a page's contract, as the
// page shows them.
type tierLadder struct {
	contract string
	utc      bool // the view's zone: UTC
	withheld bool // an embed whose link does not grant the account's limits
	env      venueapi.TierEnvelope
	answer   []byte
}

// firstTiers is the ladder shown (pages.TiersOf: the chart page, /tiers,
// the tiers embed) with the tiers the server holds for its contract, when
// the request carries them (firstdata, in ctx); ok is false otherwise.
func firstTiers(ctx context.Context, shown pages.TiersShown) (t tierLadder, ok bool) {
	lookup, found := firstdata.Tiers(ctx)
	if !found {
		return tierLadder{}, false
	}
	env, found := lookup(firstdata.TiersPage{Contract: shown.Contract, Embedded: shown.Embedded, EmbedLink: shown.EmbedLink})
	if !found || len(env.Data) == 0 {
		return tierLadder{}, false
	}
	// Written once, for the app: json.Marshal escapes <, > and &, so the
	// text cannot end the script element.
	answer, err := json.Marshal(env)
	if err != nil {
		return tierLadder{}, false
	}
	return tierLadder{contract: shown.Contract, utc: shown.UTC, withheld: shown.LimitsWithheld(), env: env, answer: answer}, true
}

// withFirstTiers puts t in a page (firstTiers): the tier table drawn with
// them in place of the prerendered empty one; the calculator, when the page
// has one, saying what it waits for with them (contracts: the list the page
// carries, nil if none); the answer itself for the app to adopt
// (boot.TiersID). ok is false when the page is left as it was.
func withFirstTiers(page []byte, t tierLadder, contracts []venueapi.Offer) (out []byte, ok bool) {
	// The prerendered table is the one section with id="tiers" (TierTable),
	// the calculator the one with id="calculator" (Calculator), neither
	// holding another section.
	calculator := bytes.Contains(page, []byte(` id="calculator"`))
	first := components.FirstTiersTable(t.contract, &t.env, time.Now())
	first.Calculator, first.UTC = calculator, t.utc
	table := app.HTMLString(first)
	script := `<script type="application/json" id="` + boot.TiersID + `" data-contract="` + html.EscapeString(t.contract) + `">` + string(t.answer) + "</script>\n"
	if out, ok = replaceElement(page, "section", "tiers", []byte(table), script); !ok || !calculator {
		return out, ok
	}
	calc := components.FirstCalculator(t.contract, &t.env, contracts)
	calc.LimitsDenied = t.withheld
	out, _ = replaceElement(out, "section", "calculator", []byte(app.HTMLString(calc)), "") // out as it was if it fails
	return out, true
}

// replaceElement is page with the element <tag … id="id"> (which holds no
// other element of its tag) replaced by with, and script put at the end of
// the body; ok is false, and page as it was, when the page has no such
// element before its body's end.
func replaceElement(page []byte, tag, id string, with []byte, script string) (out []byte, ok bool) {
	at := bytes.Index(page, []byte(` id="`+id+`"`))
	start := bytes.LastIndex(page[:max(at, 0)], []byte("<"+tag))
	end := bytes.Index(page[max(at, 0):], []byte("</"+tag+">"))
	bodyEnd := bytes.LastIndex(page, []byte("</body>"))
	if at < 0 || start < 0 || end < 0 || bodyEnd < at {
		return page, false
	}
	end += at + len("</"+tag+">")
	out = make([]byte, 0, len(page)+len(with)+len(script))
	out = append(append(append(out, page[:start]...), with...), page[end:bodyEnd]...)
	out = append(append(out, script...), page[bodyEnd:]...)
	return out, true
}
