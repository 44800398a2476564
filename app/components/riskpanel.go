package components

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/app/embedscope"
	"github.com/riskchart/riskchart/app/risk"
	"github.com/riskchart/riskchart/venueapi"
)

// Refresh pace of the private data: tiers change rarely, limits follow the
// mark price. The gateway caches both, so many viewers cost the venue little.
const (
	tiersEvery  = time.Minute
	limitsEvery = 10 * time.Second
)

// RiskPanel shows a contract's risk-limit tiers, the account's position
// limits and the calculator that joins them. It fetches and refreshes the
// data; the tables and the calculator draw it. Every number is an exact
// decimal from the wire to the screen; the arithmetic is app/risk's.
type RiskPanel struct {
	app.Compo

	// Contract is the contract code the panels show.
	Contract string
	// UTC writes the panels' times of day in UTC, as the view's zone;
	// unset, in the browser's.
	UTC bool
	// Show is "tiers" (the ladder and the calculator), "limits", or "" for all.
	Show string
	// Embedded marks a panel inside another site's iframe; EmbedToken is its
	// signed embed link (empty: none), the only access it has.
	Embedded   bool
	EmbedToken string
	// NoCalculator leaves the calculator out (an embed with controls=0).
	NoCalculator bool
	// Contracts is the server's list, for face values; the page fetches it.
	Contracts []venueapi.Offer
	// OnLoaded, when set, is told each time the data of a shown panel lands:
	// err is nil, api.ErrNoAccess when the server refused it, or what failed.
	// It is told of the page's tiers from the panel's mount, which renders
	// nothing again: what it changes there must not be on show (an embed
	// posts messages to its parent page).
	OnLoaded func(ctx app.Context, err error)

	shown     string        // the contract the data below is of
	now       time.Time     // the clock of the last drawing
	ages      string        // the age labels last drawn
	stop      chan struct{} // closed on dismount: ends the refresh loop
	offlineAt time.Time     // when the data on show was saved, when offline
	marked    bool          // the first data's start-up mark is made

	tiers      []venueapi.Tier
	ladder     risk.Ladder // the tiers checked and ordered; nil when they are not a ladder
	ladderErr  string
	tiersState fetchState
	current    venueapi.TierNumber // the calculator's tier, marked in the table
	unknown    bool                // the venue does not list the contract

	limits      []venueapi.PositionLimit // the selected contract's own
	limitsState fetchState
	withheld    error                    // the refusal of limits the embed's link makes sure of: never asked for (api.Withheld)
	found       []venueapi.PositionLimit // the filter's answer
	foundState  fetchState
	filter      venueapi.LimitQuery // the filter applied
	filtered    bool
}

// OnInit takes the tiers the server put in the page and begins the first
// fetches, in the browser, before the first render: that render shows what
// the mount starts, and the mount renders nothing again (docs/startup.md,
// "One render at mount"). Limits the embed's link does not grant are
// refused from the first render, the server's prerender too: go-app calls
// OnInit there as well, which sets the clock the first render draws by.
func (r *RiskPanel) OnInit() {
	r.now = time.Now()
	r.withhold()
	if !app.IsClient {
		return // a prerender on the server: the panels show their data as loading
	}
	adopted := r.wantsTiers() && r.adoptFirstTiers()
	r.begin(!adopted, true)
}

// OnMount tells of the tiers taken from the page at init (the only data a
// panel holds before its first fetch), starts the fetches begun at init
// (those under way) and the refresh loop. It changes nothing on show: init
// did.
func (r *RiskPanel) OnMount(ctx app.Context) {
	if !r.tiersState.dataAt.IsZero() {
		r.tell(ctx, &r.tiersState, nil)
	}
	if r.withheld != nil {
		r.tell(ctx, &r.limitsState, r.withheld)
	}
	r.fetch(ctx, fetches{tiers: r.tiersState.busy, limits: r.limitsState.busy, found: r.foundState.busy})
	ctx.PreventUpdate()
	r.stop = make(chan struct{})
	stop := r.stop
	ctx.Async(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			ctx.Dispatch(r.tick)
		}
	})
}

// OnDismount stops the refresh.
func (r *RiskPanel) OnDismount() {
	if r.stop != nil {
		close(r.stop)
		r.stop = nil
	}
}

// OnUpdate follows the page's contract.
func (r *RiskPanel) OnUpdate(ctx app.Context) {
	if !app.IsClient {
		return // a prerender on the server: the panels show their data as loading
	}
	if r.shown == r.Contract {
		return
	}
	r.tiers, r.ladder, r.ladderErr, r.limits, r.unknown = nil, nil, "", nil, false
	r.tiersState, r.limitsState, r.offlineAt = fetchState{}, fetchState{}, time.Time{}
	r.now = time.Now()
	r.withhold()
	if r.withheld != nil {
		r.tell(ctx, &r.limitsState, r.withheld)
	}
	r.load(ctx, true, true)
}

// withhold settles the account's limits as refused at r.now, without
// asking, when the embed's link surely does not grant them for the
// contract (a link's scope is signed and cannot change): withheld is that
// refusal, or nil.
func (r *RiskPanel) withhold() {
	r.withheld = api.Withheld(r.Embedded, r.EmbedToken, embedscope.PanelLimits, r.Contract)
	if r.withheld != nil {
		r.limitsState.done(r.withheld, false, r.now, 0)
	}
}

// tick runs each second: it starts the refreshes that are due, and redraws
// only when one starts or an age label changes.
func (r *RiskPanel) tick(ctx app.Context) {
	now := time.Now()
	limitsPace := limitsEvery
	if r.limitsState.noAccess {
		limitsPace = tiersEvery // a refusal does not change by the second
	}
	tiersDue := r.tiersState.due(now, tiersEvery) && r.wantsTiers() // a failure is asked again sooner (fetchState.due)
	limitsDue := r.withheld == nil && r.limitsState.due(now, limitsPace)
	ages := r.ageKey(now)
	if !tiersDue && !limitsDue && ages == r.ages {
		ctx.PreventUpdate()
		return
	}
	r.now, r.ages = now, ages
	r.load(ctx, tiersDue, limitsDue)
}

// ageKey is every age label and stale mark the panels draw at now.
func (r *RiskPanel) ageKey(now time.Time) string {
	key := ""
	for _, s := range []struct {
		f     fetchState
		every time.Duration
	}{{r.tiersState, tiersEvery}, {r.limitsState, limitsEvery}, {r.foundState, limitsEvery}} {
		key += ageLabel(now.Sub(s.f.dataAt)) + strconv.FormatBool(s.f.late(now, s.every)) + "|"
	}
	return key
}

func (r *RiskPanel) isSwap() bool {
	c, err := venueapi.ParseContractCode(r.Contract)
	return err == nil && c.Kind == venueapi.KindSwap
}

// wantsTiers reports whether the panel shows tiers: the venue has them for swaps.
func (r *RiskPanel) wantsTiers() bool { return r.Show != "limits" && r.isSwap() }

// load starts the fetches asked for that are not under way; their answers
// land through Dispatch, and only if they are still wanted.
func (r *RiskPanel) load(ctx app.Context, tiers, limits bool) { r.fetch(ctx, r.begin(tiers, limits)) }

// fetches are the fetches of the panel's data that a load starts.
type fetches struct{ tiers, limits, found bool }

// begin marks the fetches asked for that are not under way as under way,
// and says which they are.
func (r *RiskPanel) begin(tiers, limits bool) fetches {
	r.shown = r.Contract
	var f fetches
	if tiers && r.wantsTiers() && !r.tiersState.busy {
		r.tiersState.start()
		f.tiers = true
	}
	if limits && !r.limitsState.busy && r.withheld == nil {
		r.limitsState.start()
		f.limits = true
	}
	if limits && r.filtered && !r.foundState.busy {
		r.foundState.start()
		f.found = true
	}
	return f
}

// fetch starts the fetches begun.
func (r *RiskPanel) fetch(ctx app.Context, f fetches) {
	code, header := r.Contract, api.Headers(r.Embedded, r.EmbedToken)
	if f.tiers {
		ctx.Async(func() {
			env, err := api.FetchTiers(ctx, code, header)
			ctx.Dispatch(func(ctx app.Context) {
				if code != r.Contract {
					return
				}
				r.landed(ctx, &r.tiersState, err, err == nil && env.Stale, func() { r.setTiers(env.Data) })
			})
		})
	}
	if f.limits {
		ctx.Async(func() {
			env, err := api.FetchLimits(ctx, ownQuery(code), header)
			ctx.Dispatch(func(ctx app.Context) {
				if code != r.Contract {
					return
				}
				r.landed(ctx, &r.limitsState, err, err == nil && env.Stale, func() { r.setLimits(env.Data) })
			})
		})
	}
	if f.found {
		q := r.filter
		ctx.Async(func() {
			env, err := api.FetchLimits(ctx, q, header)
			ctx.Dispatch(func(ctx app.Context) {
				if !r.filtered || q != r.filter {
					return
				}
				r.landed(ctx, &r.foundState, err, err == nil && env.Stale, func() { r.found = env.Data })
			})
		})
	}
}

// setTiers keeps the venue's tiers for the table, and the calculator's
// ladder when they form one.
func (r *RiskPanel) setTiers(tiers []venueapi.Tier) {
	r.tiers = tiers
	r.ladder, r.ladderErr = ladderOf(tiers)
}

// ladderOf is tiers checked and ordered for the calculator, or nil and why
// they are not a ladder.
func ladderOf(tiers []venueapi.Tier) (risk.Ladder, string) {
	l, err := risk.NewLadder(tiers)
	if err != nil {
		return nil, err.Error()
	}
	return l, ""
}

// setLimits keeps the contract's own limits.
func (r *RiskPanel) setLimits(limits []venueapi.PositionLimit) { r.limits = limits }

// ownLimit is the account's limit record of the selected contract: its mark
// price is the one the venue uses, and its limits are the account's.
func (r *RiskPanel) ownLimit() *venueapi.PositionLimit {
	for i := range r.limits {
		if r.limits[i].ContractCode == r.Contract {
			return &r.limits[i]
		}
	}
	return nil
}

// limitQuery is the query of the limits on show.
func (r *RiskPanel) limitQuery() venueapi.LimitQuery {
	if r.filtered {
		return r.filter
	}
	return ownQuery(r.Contract)
}

// limitsOnShow is the table's rows and their state: the filter's answer
// when one is applied, else the selected contract's own limits.
func (r *RiskPanel) limitsOnShow() ([]venueapi.PositionLimit, fetchState) {
	if r.filtered {
		return r.found, r.foundState
	}
	return r.limits, r.limitsState
}

// landed applies a fetch's outcome (settle) and tells of it (tell).
func (r *RiskPanel) landed(ctx app.Context, st *fetchState, err error, stale bool, set func()) {
	r.settle(st, err, stale, set)
	r.tell(ctx, st, err)
}

// settle applies a fetch's outcome to what the panel shows: keep its data
// (set), or fall back to what browser storage holds when the server gave no
// answer.
func (r *RiskPanel) settle(st *fetchState, err error, stale bool, set func()) {
	r.now = time.Now()
	st.done(err, stale, r.now, rand.Float64())
	switch {
	case st == &r.foundState:
	case errors.Is(err, api.ErrUnknownContract):
		r.unknown = true
	case err == nil:
		r.unknown = false
	}
	if err != nil {
		r.fromStorage(err)
		return
	}
	set()
	r.offlineAt = time.Time{}
}

// tell does what an outcome owes beyond what the panel shows: the first
// data's start-up mark, the data saved, and the parent told (OnLoaded).
func (r *RiskPanel) tell(ctx app.Context, st *fetchState, err error) {
	if err == nil {
		if !r.marked {
			r.marked = true
			browser.Mark(browser.MarkRiskFirstData)
		}
		r.save(ctx)
	}
	if r.OnLoaded != nil && (r.Show == "" || (r.Show == "tiers") == (st == &r.tiersState)) {
		r.OnLoaded(ctx, err)
	}
}

// denied reports whether the server refused the data of a panel on show.
func (r *RiskPanel) denied() bool {
	return r.tiersState.noAccess && r.Show != "limits" || r.limitsState.noAccess && r.Show != "tiers"
}

func (r *RiskPanel) storageKey() string { return "riskchart/risk/" + r.Contract }

// save keeps the data on show (venueapi.RiskRecords, written in one pass)
// in browser storage, for when the server cannot be reached, after the task
// that showed it (keepLater; docs/startup.md, "The risk panel's
// records"). What is kept is what is on show then.
func (r *RiskPanel) save(ctx app.Context) {
	keepLater(ctx, func() {
		if len(r.tiers) > 0 || len(r.limits) > 0 {
			browser.KeepLastSeen(browser.LocalStorage(), r.storageKey(), venueapi.RiskRecords{Tiers: r.tiers, Limits: r.limits}, time.Now())
		}
	})
}

// fromStorage shows the last data seen when the server gave no answer, with
// the time it was seen as its age.
func (r *RiskPanel) fromStorage(err error) {
	if !api.Unanswered(err) {
		return
	}
	saved, at, ok := browser.ReadLastSeen[venueapi.RiskRecords](browser.LocalStorage(), r.storageKey())
	if !ok {
		return
	}
	restored := false
	if len(r.tiers) == 0 && len(saved.Tiers) > 0 {
		r.setTiers(saved.Tiers)
		r.tiersState.dataAt, restored = at, true
	}
	if len(r.limits) == 0 && len(saved.Limits) > 0 {
		r.setLimits(saved.Limits)
		r.limitsState.dataAt, restored = at, true
	}
	if restored { // data already on show keeps its own age and failure line
		r.offlineAt = at
	}
}

// Render draws the panels: tiers and calculator, then limits.
func (r *RiskPanel) Render() app.UI {
	body := []app.UI{
		app.Div().Class("risk-head").Body(
			app.Span().Class("muted").Text("Risk · "+r.Contract),
			app.Button().ID("risk-refresh").Class("button").Text("Refresh now").
				Disabled(r.tiersState.busy && r.limitsState.busy).
				OnClick(func(ctx app.Context, e app.Event) { r.load(ctx, true, true) }),
		),
		slot(!r.offlineAt.IsZero(), func() app.UI {
			return app.P().ID("risk-offline").Class("notice").Attr("role", "status").
				Text("Offline, as of " + asOf(r.offlineAt, r.UTC) + ": the last tiers and limits seen.")
		}),
		slot(r.denied() && !r.unknown, func() app.UI {
			return app.P().ID("risk-noaccess").Class("notice").Attr("role", "status").Body(r.noAccessNotice()...)
		}),
		slot(r.unknown, func() app.UI {
			return app.P().ID("risk-unknown").Class("notice").Attr("role", "status").Text(unknownContractText(r.Contract))
		}),
	}
	if r.unknown {
		return app.Aside().Class("risk").Aria("label", "Risk limits of "+r.Contract).Body(body...)
	}
	if r.Show != "limits" {
		body = append(body,
			&TierTable{Contract: r.Contract, Tiers: r.tiers, State: r.tiersState, Now: r.now, UTC: r.UTC,
				Current: r.current, LadderErr: r.ladderErr, Calculator: !r.NoCalculator},
			slot(r.isSwap() && !r.NoCalculator, func() app.UI {
				return &Calculator{Contract: r.Contract, Tiers: r.tiers, Ladder: r.ladder, LadderErr: r.ladderErr,
					Contracts: r.Contracts, Limit: r.ownLimit(),
					TiersDenied: r.tiersState.noAccess, LimitsDenied: r.limitsState.noAccess,
					TiersErr: failedWithout(r.tiersState, len(r.tiers) > 0), LimitsErr: failedWithout(r.limitsState, r.ownLimit() != nil),
					OnTier: func(ctx app.Context, t venueapi.TierNumber) { r.current = t }}
			}),
		)
	}
	if r.Show != "tiers" {
		rows, st := r.limitsOnShow()
		body = append(body, &LimitsTable{Contract: r.Contract, Rows: rows, State: st, Now: r.now, UTC: r.UTC, Query: r.limitQuery(),
			Filtered: r.filtered, Contracts: r.Contracts,
			OnFilter: func(ctx app.Context, q venueapi.LimitQuery) {
				r.filtered, r.filter = true, q
				r.found, r.foundState = nil, fetchState{}
				r.load(ctx, false, true)
			},
			OnReset: func(ctx app.Context) { r.filtered = false },
		})
	}
	return app.Aside().Class("risk").Aria("label", "Risk limits of "+r.Contract).Body(body...)
}

// unknownContractText is how every panel says that the venue does not list
// a contract, in the chart's words.
func unknownContractText(code string) string {
	return "The venue does not know the contract " + code + "."
}

// failedWithout is why the last fetch failed while no data is on show; ""
// when data is on show or nothing failed.
func failedWithout(st fetchState, have bool) string {
	if have || st.noAccess {
		return ""
	}
	return st.err
}

// slot is el() when shown, else an empty text node holding its place: go-app
// matches children by position, so the components after it keep their state.
func slot(shown bool, el func() app.UI) app.UI {
	if shown {
		return el()
	}
	return app.Text("")
}

// noAccessNotice says why the private panels are empty. Outside an embed it
// links to the login page, which returns to this page once signed in (it
// reads where from the link's Referer: the page's URL at the click).
func (r *RiskPanel) noAccessNotice() []app.UI {
	if r.Embedded {
		return []app.UI{app.Text("No access: this embed has no valid link for the private data of " + r.Contract + ".")}
	}
	return []app.UI{
		app.Text("No access to private data on this server: it has no venue key, or you need a viewer token ("),
		// The login page is the server's, not a route of the app: the click
		// keeps to the browser's own navigation, out of go-app's router.
		app.A().ID("risk-signin").Href("/login").Text("sign in").
			OnClick(func(_ app.Context, e app.Event) { e.Call("stopPropagation") }),
		app.Text("). The chart works without it."),
	}
}
