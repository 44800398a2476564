package components

import (
	"time"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// FirstTiersTable is the tier table as the server prerenders it when it
// holds the tiers of contract (env, fetched at env.Ts): the page shows them
// before app.wasm runs, and the app adopts the same answer (adoptFirstTiers).
// The server sets the view's zone (UTC) and whether the page has a
// calculator beside it (Calculator, FirstCalculator) as the page's own
// table has them.
func FirstTiersTable(contract string, env *venueapi.TierEnvelope, now time.Time) *TierTable {
	at := time.UnixMilli(env.Ts)
	return &TierTable{Contract: contract, Tiers: env.Data, Now: now, State: fetchState{dataAt: at, triedAt: at}}
}

// FirstCalculator is the calculator as the server prerenders it beside
// FirstTiersTable: holding the tiers, and the contract list when the page
// carries one (nil: none), it says what it waits for as the app's first
// render will, the account's mark price, not the tiers the table above it
// shows. The server puts it in place of the page's own calculator, so a
// page with none (a future's, an embed without controls) gets none, and
// sets LimitsDenied for an embed whose link does not grant the limits, as
// the page's panel has it (RiskPanel.withhold).
func FirstCalculator(contract string, env *venueapi.TierEnvelope, contracts []venueapi.Offer) *Calculator {
	c := &Calculator{Contract: contract, Tiers: env.Data, Contracts: contracts}
	c.Ladder, c.LadderErr = ladderOf(env.Data)
	c.OnInit() // HTMLString renders without a mount
	return c
}

// adoptFirstTiers takes, once, the tiers the server put in the page for the
// panel's contract, or else those the page read before the app ran when
// they are in (api.TakePageTiers), in place of a fetch; the refresh then
// comes when it would have after the server's own fetch. It runs before the
// panel's first render (RiskPanel.OnInit), which shows them; the mount
// tells of them.
func (r *RiskPanel) adoptFirstTiers() bool {
	env, ok := r.firstTiers()
	if !ok {
		return false
	}
	r.settle(&r.tiersState, nil, env.Stale, func() { r.setTiers(env.Data) })
	if at := time.UnixMilli(env.Ts); at.Before(r.now) {
		r.tiersState.dataAt, r.tiersState.triedAt = at, at
	}
	return true
}

// firstTiers is the tiers the page holds for the panel's contract: written
// in by the server, or read by the page before the app ran.
func (r *RiskPanel) firstTiers() (*venueapi.TierEnvelope, bool) {
	code := r.Contract
	body, ok := browser.TakeFirstTiers(code)
	if !ok {
		return api.TakePageTiers(code, api.Headers(r.Embedded, r.EmbedToken))
	}
	env, err := api.ReadTiers(code, 200, body)
	if err != nil {
		return nil, false // the panel fetches them and says what is wrong
	}
	return env, true
}
