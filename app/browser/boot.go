package browser

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/boot"
	"github.com/riskchart/riskchart/venueapi"
)

// FirstPaint reads what the page's first-paint script (web/chart-boot.js)
// did; ok is false on a page without it. The app reads the script's state
// here only.
func FirstPaint() (s boot.State, ok bool) {
	b := app.Window().Get(boot.Global)
	if !b.Truthy() {
		return boot.State{}, false
	}
	str := func(name string) string {
		if v := b.Get(name); v.Type() == app.TypeString {
			return v.String()
		}
		return ""
	}
	num := func(name string) int {
		if v := b.Get(name); v.Type() == app.TypeNumber {
			return v.Int()
		}
		return 0
	}
	return boot.State{
		Contract: str("contract"),
		Period:   venueapi.Period(str("period")),
		Dark:     b.Get("dark").Truthy(),
		Drawn:    b.Get("drawn").Truthy(),
		Adopted:  b.Get("adopted").Truthy(),
		Settled:  b.Get("settled").Truthy(),
		Compact:  b.Get("compact").Truthy(),
		PriceTop: num("priceTop"),
	}, true
}

// AdoptFirstPaint claims the first paint's chart, once: the script draws
// nothing after this. It returns the script's ECharts instance and element
// when it drew candles of contract and period, and what it did (its frame
// dark or not, where it started the price grid).
func AdoptFirstPaint(contract string, period venueapi.Period) (chart, el app.Value, s boot.State, ok bool) {
	s, found := FirstPaint()
	if !found || s.Adopted {
		return nil, nil, boot.State{}, false
	}
	b := app.Window().Get(boot.Global)
	b.Set("adopted", true)
	if !s.Shows(contract, period) || !s.Drawn {
		return nil, nil, boot.State{}, false // another view, or nothing drawn yet
	}
	return b.Get("chart"), b.Get("el"), s, true
}

// TakeFirstPaintAnswer returns, once, the KLine answer that the first-paint
// script fetched for contract and period, so that the app does not ask the
// server again for what it has just sent.
func TakeFirstPaintAnswer(contract string, period venueapi.Period) (body string, ok bool) {
	if !HasFirstPaintAnswer(contract, period) {
		return "", false
	}
	b := app.Window().Get(boot.Global)
	body = b.Get("answer").String()
	b.Set("answer", nil)
	return body, true
}

// HasFirstPaintAnswer reports whether the first-paint script holds a KLine
// answer for contract and period that TakeFirstPaintAnswer has not taken.
func HasFirstPaintAnswer(contract string, period venueapi.Period) bool {
	s, found := FirstPaint()
	return found && s.Shows(contract, period) && app.Window().Get(boot.Global).Get("answer").Type() == app.TypeString
}

// TakeFirstTiers returns, once, the tier path's answer the server put in the
// page for contract (boot.TiersID). The element is outside the app's root,
// so it outlives go-app's mount; it is removed once read.
func TakeFirstTiers(contract string) (body string, ok bool) {
	el, ok := takeElement(boot.TiersID)
	if !ok || el.Call("getAttribute", "data-contract").String() != contract {
		return "", false
	}
	return el.Get("textContent").String(), true
}

// TakeFirstContracts returns, once, the contract path's answer the server
// put in the page (boot.ContractsID), as TakeFirstTiers does the tiers'.
func TakeFirstContracts() (body string, ok bool) {
	el, ok := takeElement(boot.ContractsID)
	if !ok {
		return "", false
	}
	return el.Get("textContent").String(), true
}

// takeElement removes the element with id from the page and returns it;
// ok is false when the page has none.
func takeElement(id string) (app.Value, bool) {
	el := ElementByID(id)
	if !el.Truthy() {
		return nil, false
	}
	el.Call("remove")
	return el, true
}

// TakePageAnswer returns, once, the promise of the answer to href that the
// chart page's head script (web/chart-answer.js) started reading, under the
// window's property global; ok is false when it reads no such answer.
// AwaitAnswer waits for it.
func TakePageAnswer(global, href string) (read app.Value, ok bool) {
	w := app.Window()
	a := w.Get(global)
	if !a.Truthy() || a.Get("href").String() != href {
		return nil, false
	}
	w.Delete(global)
	return a.Get("read"), true
}

// PageAnswerIn returns the answer to href that the chart page's head script
// (web/chart-answer.js) read under the window's property global, when that
// answer is in already; ok is false when the page reads no such answer or
// it is still under way. It leaves the read where it is: TakePageAnswer
// takes it.
func PageAnswerIn(global, href string) (a Answer, ok bool) {
	read := app.Window().Get(global)
	if !read.Truthy() || read.Get("href").String() != href {
		return Answer{}, false
	}
	in := read.Get("answer")
	if !in.Truthy() {
		return Answer{}, false
	}
	return pageAnswer(in), true
}

// pageAnswer is an answer as the head script leaves it: its HTTP status and
// text.
func pageAnswer(v app.Value) Answer {
	return Answer{Status: v.Get("status").Int(), Body: v.Get("text").String(), Header: func(string) string { return "" }}
}

// AwaitAnswer waits for read, a promise of an answer's HTTP status and text
// (TakePageAnswer), or for ctx's end; a rejected promise is a
// NetworkError, as Fetch's.
func AwaitAnswer(ctx context.Context, read app.Value) (Answer, error) {
	done := make(chan settlement, 1)
	var onAnswer, onError app.Func
	release := func() { onAnswer.Release(); onError.Release() }
	onAnswer = app.FuncOf(func(_ app.Value, args []app.Value) any {
		done <- settlement{a: pageAnswer(args[0])}
		return nil
	})
	onError = app.FuncOf(func(_ app.Value, args []app.Value) any {
		done <- settlement{err: rejection(args)}
		return nil
	})
	read.Call("then", onAnswer, onError)
	return settled(ctx, done, release, nil)
}
