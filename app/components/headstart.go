package components

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// HeadStart is a risk panel's first fetches, begun before the panel mounts:
// the chart page mounts its panel a task after the rest of the page
// (app/pages/chart.go), and the panel's data need not wait for that. The
// panel takes each answer once, for the contract they were begun for, in
// place of its own first fetch.
type HeadStart struct {
	contract string
	tiers    begun[*venueapi.TierEnvelope] // nil: not begun, or taken
	limits   begun[*venueapi.LimitEnvelope]
}

// begun is a fetch under way: its answer comes once.
type begun[T any] chan answer[T]

type answer[T any] struct {
	env T
	err error
}

// await returns the begun fetch's answer, or fetch's when none was begun.
func (b begun[T]) await(fetch func() (T, error)) (T, error) {
	if b == nil {
		return fetch()
	}
	a := <-b
	return a.env, a.err
}

// BeginRiskFetches starts what a panel of all the risk data (RiskPanel with
// Show "") of contract fetches first, on the page's own access: the tiers,
// unless the page holds them or the contract has none, and the account's
// limits of the contract.
func BeginRiskFetches(ctx app.Context, contract string) *HeadStart {
	// Each fetch answers on its own channel: the panel takes it from h.
	h := &HeadStart{contract: contract}
	if (&RiskPanel{Contract: contract}).wantsTiers() && !browser.HoldsFirstTiers(contract) {
		tiers := make(begun[*venueapi.TierEnvelope], 1)
		h.tiers = tiers
		ctx.Async(func() {
			env, err := api.FetchTiers(ctx, contract, nil)
			tiers <- answer[*venueapi.TierEnvelope]{env, err}
		})
	}
	limits := make(begun[*venueapi.LimitEnvelope], 1)
	h.limits = limits
	ctx.Async(func() {
		env, err := api.FetchLimits(ctx, ownQuery(contract), nil)
		limits <- answer[*venueapi.LimitEnvelope]{env, err}
	})
	return h
}

// takeTiers hands over, once, the tiers fetch begun for contract; nil when
// there is none. It runs on the UI goroutine, the caller's wait elsewhere.
func (h *HeadStart) takeTiers(contract string) begun[*venueapi.TierEnvelope] {
	if h == nil || h.contract != contract {
		return nil
	}
	ch := h.tiers
	h.tiers = nil
	return ch
}

// takeLimits hands over, once, the limits fetch begun for contract, as
// takeTiers does.
func (h *HeadStart) takeLimits(contract string) begun[*venueapi.LimitEnvelope] {
	if h == nil || h.contract != contract {
		return nil
	}
	ch := h.limits
	h.limits = nil
	return ch
}
