package e2e

// The risk panels in a real browser against the whole server and its
// sandbox. Every expected figure is computed here, with decimal arithmetic,
// from what the server's own API answers: not with app/risk's code.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"github.com/riskchart/riskchart/app/chartopt"
	"github.com/riskchart/riskchart/server/internal/sandbox"
	"github.com/riskchart/riskchart/server/internal/sandbox/sandboxtest"
	"github.com/riskchart/riskchart/venueapi"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, chromedp.Poll(js, nil, chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		var text string
		chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &text))
		t.Fatalf("waiting for %s: %v\npage: %q", js, err, text)
	}
}

// typeInto sets an input's value as typing does (an input event).
func typeInto(ctx context.Context, id, value string) error {
	return chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const i = document.getElementById(%q); i.value = %q; i.dispatchEvent(new Event("input", {bubbles: true})); })()`, id, value), nil))
}

// choose picks the option of a select labelled label, as a person does (by
// what it says, whatever its value), and checks that the app kept that
// choice once it had handled the change event.
func choose(t *testing.T, ctx context.Context, id, label string) {
	t.Helper()
	js := fmt.Sprintf(`(() => {
  const s = document.getElementById(%q);
  const i = [...s.options].findIndex((o) => o.text === %q);
  if (i < 0) return "no such option; there are " + JSON.stringify([...s.options].map((o) => o.text));
  s.selectedIndex = i;
  s.dispatchEvent(new Event("change", {bubbles: true}));
  return "";
})()`, id, label)
	if msg := evalJS[string](t, ctx, js); msg != "" {
		t.Fatalf("choosing %q in %s: %s", label, id, msg)
	}
	waitFor(t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById(%q); return s.selectedIndex >= 0 && s.options[s.selectedIndex].text === %q })()`, id, label))
}

func click(t *testing.T, ctx context.Context, selector string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Click(selector, chromedp.ByQuery)); err != nil {
		t.Fatalf("clicking %s: %v", selector, err)
	}
}

// navigate opens u in the tab, and fails the test if the browser cannot.
func navigate(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("opening %s: %v", u, err)
	}
}

// do runs js on the page for what it does, and fails the test if it throws
// or the page is gone.
func do(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, nil)); err != nil {
		t.Fatalf("running %s: %v", js, err)
	}
}

// apiLimits asks the server's position-limit path, as the panel does.
func apiLimits(t *testing.T, base string, q venueapi.LimitQuery) []venueapi.PositionLimit {
	t.Helper()
	body, _ := json.Marshal(q)
	res, err := http.Post(base+venueapi.PathPositionLimit, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env venueapi.LimitEnvelope
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || env.Status != venueapi.StatusOK {
		t.Fatalf("limits %+v: %v %+v", q, err, env)
	}
	return env.Data
}

func apiTiers(t *testing.T, base, code string) []venueapi.Tier {
	t.Helper()
	var env venueapi.TierEnvelope
	getJSON(t, base+venueapi.PathTiers+"?contract_code="+url.QueryEscape(code), &env)
	if env.Code != venueapi.CodeOK || len(env.Data) == 0 {
		t.Fatalf("tiers of %s: %+v", code, env)
	}
	return env.Data
}

func faceValue(t *testing.T, base, code string) decimal.Decimal {
	t.Helper()
	var list struct {
		Data []venueapi.Offer `json:"data"`
	}
	getJSON(t, base+venueapi.PathContracts, &list)
	for _, c := range list.Data {
		if c.Code == code {
			return c.FaceValue
		}
	}
	t.Fatalf("the server lists no %s", code)
	return decimal.Zero
}

// limitRow is how the limits table should write a record.
func limitRow(l venueapi.PositionLimit) []string {
	g := func(d decimal.Decimal) string { return chartopt.Group(d.String()) }
	return []string{l.ContractCode, g(l.BuyLimit) + " cont · " + g(l.BuyLimitValue) + " USDT",
		g(l.SellLimit) + " cont · " + g(l.SellLimitValue) + " USDT", fmt.Sprint(l.LeverRate) + "×", g(l.MarkPrice)}
}

const jsLimitRows = `[...document.querySelectorAll("#limits-table tbody tr[data-contract]")].map(r => [...r.cells].map(c => c.textContent))`

// limitsMatch waits until the limits table shows what the API answers to q
// at that moment: mark prices move, so it asks again while they differ.
func limitsMatch(t *testing.T, ctx context.Context, base string, q venueapi.LimitQuery) []venueapi.PositionLimit {
	t.Helper()
	var want [][]string
	var got [][]string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		api := apiLimits(t, base, q)
		want = want[:0]
		for _, l := range api {
			want = append(want, limitRow(l))
		}
		got = evalJS[[][]string](t, ctx, jsLimitRows)
		slices.SortFunc(want, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
		slices.SortFunc(got, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return api
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("limits table\n%q\nwant (as the API answers %+v)\n%q", got, q, want)
	return nil
}

// jsCalcFigures reads the calculator's figures, by id, and the mark price
// of the page's contract in the limits table ("limits-mark"), in one
// evaluation: a refresh of the limits between reads made one at a time
// moved the mark price, and the figures with it, past the one read first.
// An element not on show reads ""; the leverage warning, when shown, "shown".
const jsCalcFigures = `(() => {
  const text = (e) => (e ? e.textContent : "");
  const out = {"limits-mark": text(document.querySelector('#limits-table tr[data-contract="BTC-USDT"] .mark')),
    "calc-warning": document.getElementById("calc-warning") ? "shown" : ""};
  for (const id of ["calc-position", "calc-tier", "calc-margin", "calc-tier-lever", "calc-max", "calc-fits-long", "calc-fits-short"]) {
    out[id] = text(document.getElementById(id));
  }
  return out;
})()`

// tierOf is the venue family's reading of a ladder: min < size ≤ max, tier 1 from 0.
func tierOf(tiers []venueapi.Tier, size decimal.Decimal) (venueapi.Tier, bool) {
	for _, tr := range tiers {
		if !size.GreaterThan(tr.MaxVolume) {
			return tr, true
		}
	}
	return venueapi.Tier{}, false
}

// numberIn is the first number in a text such as "475.0025 USDT".
func numberIn(t *testing.T, text string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(strings.ReplaceAll(strings.Fields(text)[0], ",", "")) // grouped as the tables write it
	if err != nil {
		t.Fatalf("no number at the start of %q", text)
	}
	return d
}

// maintAmount is tier i's cumulative maintenance amount, in the ladder's
// unit, worked here from the venue's ladder (docs/calculator.md).
func maintAmount(tiers []venueapi.Tier, i int) decimal.Decimal {
	amount, rate := decimal.Zero, decimal.Zero
	for _, t := range tiers[:i+1] {
		amount = amount.Add(t.MinVolume.Mul(t.MaintenanceMarginRate.Sub(rate)))
		rate = t.MaintenanceMarginRate
	}
	return amount
}

// tierIndex is the index of tier t in tiers.
func tierIndex(tiers []venueapi.Tier, t venueapi.Tier) int {
	for i := range tiers {
		if tiers[i].Tier == t.Tier {
			return i
		}
	}
	return -1
}

func TestRiskPanelsInTheBrowser(t *testing.T) {
	s := startServer(t, nil)
	ctx := newBrowser(t)
	const code = "BTC-USDT"
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code="+code)); err != nil {
		t.Fatal(err)
	}
	tiers := apiTiers(t, s.URL, code)
	face := faceValue(t, s.URL, code)
	waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll("#tier-table tbody tr").length === %d`, len(tiers)))

	t.Run("the tier table matches the venue's tiers row for row", func(t *testing.T) {
		rows := evalJS[[][]string](t, ctx, `[...document.querySelectorAll("#tier-table tbody tr")].map(r => [...r.cells].map(c => c.textContent))`)
		for i, tr := range tiers {
			want := []string{fmt.Sprint(tr.Tier), chartopt.Group(tr.MinVolume.String()) + " – " + chartopt.Group(tr.MaxVolume.String()), tr.MaxLever.String() + "×",
				tr.MaintenanceMarginRate.Mul(decimal.NewFromInt(100)).String() + "%", chartopt.Group(maintAmount(tiers, i).String())}
			if fmt.Sprint(rows[i]) != fmt.Sprint(want) {
				t.Errorf("row %d: %q, want %q", i+1, rows[i], want)
			}
		}
		if note := evalJS[string](t, ctx, `document.getElementById("tiers-note").textContent`); !strings.Contains(note, "contracts") {
			t.Errorf("the table does not say its unit: %q", note)
		}
		if head := evalJS[string](t, ctx, `document.querySelector("#tier-table thead").textContent`); !strings.Contains(head, "Position band (cont)") || !strings.Contains(head, "Maint. amount (cont)") {
			t.Errorf("the headers do not say their unit: %q", head)
		}
	})

	t.Run("the tier table sorts by each column both ways", func(t *testing.T) {
		order := func(less func(a, b venueapi.Tier) int, desc bool) string {
			s := slices.Clone(tiers)
			slices.SortStableFunc(s, func(a, b venueapi.Tier) int {
				c := less(a, b)
				if c == 0 {
					c = int(a.Tier) - int(b.Tier)
				}
				if desc {
					return -c
				}
				return c
			})
			var out []string
			for _, tr := range s {
				out = append(out, fmt.Sprint(tr.Tier))
			}
			return strings.Join(out, ",")
		}
		byLever := func(a, b venueapi.Tier) int { return a.MaxLever.Cmp(b.MaxLever) }
		byRate := func(a, b venueapi.Tier) int { return a.MaintenanceMarginRate.Cmp(b.MaintenanceMarginRate) }
		byTier := func(a, b venueapi.Tier) int { return 0 }
		for _, tc := range []struct {
			col, aria string
			want      string
		}{
			{"lever", "ascending", order(byLever, false)},
			{"lever", "descending", order(byLever, true)},
			{"rate", "ascending", order(byRate, false)},
			{"tier", "ascending", order(byTier, false)},
		} {
			click(t, ctx, fmt.Sprintf(`[data-sort=%q]`, tc.col))
			js := fmt.Sprintf(`[...document.querySelectorAll("#tier-table tbody tr")].map(r => r.dataset.tier).join(",") === %q && document.querySelector('[data-sort=%q]').parentElement.getAttribute("aria-sort") === %q`, tc.want, tc.col, tc.aria)
			waitFor(t, ctx, js)
		}
	})

	var limit venueapi.PositionLimit
	t.Run("the limits panel shows the venue's numbers", func(t *testing.T) {
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="BTC-USDT"]')`)
		limit = limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{ContractCode: code})[0]
		text := evalJS[string](t, ctx, `document.getElementById("limits").textContent`)
		if strings.Contains(text, "partition") {
			t.Error("the deprecated trade_partition is shown")
		}
		at := evalJS[string](t, ctx, `document.querySelector("#limits-state .age").dataset.at`)
		fetched, err := time.Parse(time.RFC3339Nano, at)
		if err != nil || time.Since(fetched) > time.Minute || time.Since(fetched) < 0 {
			t.Errorf("the limits' fetch time %q (%v) is not the time they were fetched", at, err)
		}
		if got := evalJS[string](t, ctx, `document.querySelector("#limits-state .age").textContent`); !strings.HasPrefix(got, "Fetched ") {
			t.Errorf("the limits' age reads %q", got)
		}
	})

	t.Run("refresh now fetches again and moves the data's time", func(t *testing.T) {
		before := evalJS[string](t, ctx, `document.querySelector("#limits-state .age").dataset.at`)
		time.Sleep(10 * time.Millisecond) // a later fetch has a later time
		click(t, ctx, "#risk-refresh")
		// Compared as times: RFC 3339 stamps, their fractions cut short of
		// trailing zeros, do not sort as text ("…:05.1Z" after "…:05.12Z").
		waitFor(t, ctx, fmt.Sprintf(`Date.parse(document.querySelector("#limits-state .age").dataset.at) > Date.parse(%q) && Date.parse(document.querySelector("#tiers-state .age").dataset.at) > Date.parse(%q)`, before, before))
	})

	t.Run("the calculator answers with exact decimals", func(t *testing.T) {
		last := tiers[len(tiers)-1]
		for _, tc := range []struct {
			name      string
			size      string
			unit      string // the option's label
			leverage  string
			wantError string // in the size field's message
		}{
			{"a small position", "10", "contracts", "20", ""},
			{"a size on tier 1's top stays in tier 1", tiers[0].MaxVolume.String(), "contracts", tiers[0].MaxLever.String(), ""},
			{"one contract more is tier 2, and its leverage warns", tiers[0].MaxVolume.Add(decimal.NewFromInt(1)).String(), "contracts", tiers[0].MaxLever.String(), ""},
			{"a USDT size buys whole contracts", "123456.78", "USDT", "10", ""},
			{"the last tier's top", last.MaxVolume.String(), "contracts", "1", ""},
			{"beyond the last tier", last.MaxVolume.Add(decimal.NewFromInt(1)).String(), "contracts", "1", "beyond the last tier"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				choose(t, ctx, "calc-unit", tc.unit)
				typeInto(ctx, "calc-leverage", tc.leverage)
				typeInto(ctx, "calc-size", tc.size)
				if tc.wantError != "" {
					waitFor(t, ctx, fmt.Sprintf(`(document.getElementById("calc-error-size") || {}).textContent?.includes(%q) && !document.getElementById("calc-margin") && !document.querySelector("#tier-table tr.current")`, tc.wantError))
					return
				}
				waitFor(t, ctx, `!!document.getElementById("calc-margin")`)
				// The calculator's mark price is the limits' (checked against the
				// API above). It moves with each refresh of the limits (every
				// 10 s): the figures are read in one evaluation, one render's, at
				// the mark they name, once they answer this case's size.
				size := decimal.RequireFromString(tc.size)
				var fig map[string]string
				var mark, contracts decimal.Decimal
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(25 * time.Millisecond) {
					fig = evalJS[map[string]string](t, ctx, jsCalcFigures)
					pos, limitsMark := fig["calc-position"], fig["limits-mark"]
					if i := strings.Index(pos, "at mark "); i > 0 && limitsMark != "" {
						mark = numberIn(t, pos[i+len("at mark "):])
						contracts = size
						if tc.unit == "USDT" {
							contracts = size.Div(mark.Mul(face)).Floor()
						}
						if mark.Equal(numberIn(t, limitsMark)) && numberIn(t, pos).Equal(contracts) {
							break
						}
					}
					if time.Now().After(deadline) {
						t.Fatalf("the calculator's position reads %q, the limits' mark price %q: want %s %s at that mark", pos, limitsMark, tc.size, tc.unit)
					}
				}
				value := mark.Mul(face)
				tier, ok := tierOf(tiers, contracts)
				if !ok {
					t.Fatalf("test case %s is beyond the ladder", tc.name)
				}
				lev := decimal.RequireFromString(tc.leverage)
				var maxTop decimal.Decimal
				for _, tr := range tiers {
					if tr.MaxLever.LessThan(lev) {
						break
					}
					maxTop = tr.MaxVolume
				}
				// (contracts × rate − the tier's amount) × face × mark, up to 4 places
				mm := contracts.Mul(tier.MaintenanceMarginRate).Sub(maintAmount(tiers, tierIndex(tiers, tier))).Mul(face).Mul(mark).RoundCeil(4)
				want := map[string]string{
					"calc-tier":       fmt.Sprint(tier.Tier),
					"calc-position":   contracts.String(),
					"calc-margin":     mm.String(),
					"calc-tier-lever": tier.MaxLever.String() + "×",
					"calc-max":        maxTop.String(),
				}
				for id, w := range want {
					got := fig[id]
					switch id {
					case "calc-margin", "calc-position", "calc-max":
						if !numberIn(t, got).Equal(decimal.RequireFromString(w)) {
							t.Errorf("%s reads %q, want %s", id, got, w)
						}
					default:
						if !strings.HasPrefix(got, w) {
							t.Errorf("%s reads %q, want %s", id, got, w)
						}
					}
				}
				if got := fig["calc-position"]; !strings.Contains(got, chartopt.Group(contracts.Mul(value).String())+" USDT") {
					t.Errorf("position %q does not give its value %s USDT", got, contracts.Mul(value))
				}
				wantWarn := lev.GreaterThan(tier.MaxLever)
				if warn := fig["calc-warning"] == "shown"; warn != wantWarn {
					t.Errorf("leverage warning shown: %v, want %v", warn, wantWarn)
				}
				// at the typed leverage: the smaller of the account's limit and the tiers' top there
				fits := map[bool]string{true: "fits", false: "exceeds"}
				for id, lim := range map[string]decimal.Decimal{"calc-fits-long": decimal.Min(limit.BuyLimit, maxTop), "calc-fits-short": decimal.Min(limit.SellLimit, maxTop)} {
					if got := fig[id]; !strings.HasPrefix(got, fits[!contracts.GreaterThan(lim)]) {
						t.Errorf("%s reads %q against a limit of %s contracts", id, got, lim)
					}
				}
				// The tier table is another component: its highlight may follow
				// the calculator's answer by a render.
				waitFor(t, ctx, fmt.Sprintf(`(document.querySelector("#tier-table tr.current") || {dataset: {}}).dataset.tier === %q`, fmt.Sprint(tier.Tier)))
			})
		}
	})

	t.Run("bad input gets a message next to its field, never a number", func(t *testing.T) {
		choose(t, ctx, "calc-unit", "contracts")
		typeInto(ctx, "calc-leverage", "10")
		for _, tc := range []struct{ field, value, want string }{
			{"size", "-5", "Position size must be more than zero"},
			{"size", "lots", "Position size must be a number"},
			{"size", "", "Position size is empty: enter a number"},
			{"size", "2.5", "Position size in contracts must be a whole number"},
			{"leverage", "2.5", "Leverage must be a whole number"},
			{"leverage", "0", "Leverage must be more than zero"},
		} {
			typeInto(ctx, "calc-size", "10")
			if tc.field == "leverage" {
				typeInto(ctx, "calc-leverage", tc.value)
			} else {
				typeInto(ctx, "calc-size", tc.value)
			}
			waitFor(t, ctx, fmt.Sprintf(`(() => { const e = document.getElementById("calc-error-%s"); return !!e && e.textContent.startsWith(%q) && !document.getElementById("calc-margin") && document.getElementById("calc-%s").getAttribute("aria-invalid") === "true" })()`,
				tc.field, tc.want, tc.field))
			typeInto(ctx, "calc-leverage", "10")
		}
		screenshot(t, ctx, "risk-calculator-error")
	})

	t.Run("the limits filter follows the endpoint's rules", func(t *testing.T) {
		// A future needs business type futures or all: refused before sending.
		typeInto(ctx, "filter-pair", "BTC-USDT")
		choose(t, ctx, "filter-type", "quarter")
		click(t, ctx, "#filter-apply")
		waitFor(t, ctx, `(document.getElementById("filter-error") || {}).textContent?.startsWith("invalid business_type") && document.getElementById("filter-business").getAttribute("aria-invalid") === "true"`)
		choose(t, ctx, "filter-business", "futures")
		click(t, ctx, "#filter-apply")
		waitFor(t, ctx, `!document.getElementById("filter-error") && !document.querySelector('#limits-table tr[data-contract="BTC-USDT"]') && document.querySelectorAll("#limits-table tbody tr[data-contract]").length > 0`)
		got := limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{Pair: "BTC-USDT", ContractType: venueapi.TypeQuarter, BusinessType: venueapi.BusinessFutures})
		if len(got) != 1 || got[0].ContractType != venueapi.TypeQuarter {
			t.Errorf("the quarter future: %+v", got)
		}
		// All of a pair's contracts.
		choose(t, ctx, "filter-type", "any")
		choose(t, ctx, "filter-business", "all")
		click(t, ctx, "#filter-apply")
		waitFor(t, ctx, `document.querySelectorAll("#limits-table tbody tr[data-contract]").length > 1`)
		if all := limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{Pair: "BTC-USDT", BusinessType: venueapi.BusinessAll}); len(all) < 2 {
			t.Errorf("pair BTC-USDT, business all: %d contracts", len(all))
		}
		// A contract code wins over pair and type: the form says so.
		typeInto(ctx, "filter-code", "ETH-USDT")
		choose(t, ctx, "filter-business", "default (swap)")
		waitFor(t, ctx, `(document.getElementById("filter-note") || {}).textContent?.includes("wins over pair")`)
		click(t, ctx, "#filter-apply")
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]') && document.querySelectorAll("#limits-table tbody tr[data-contract]").length === 1`)
		limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{ContractCode: "ETH-USDT", Pair: "BTC-USDT"})
		// A malformed code is refused, naming the parameter.
		typeInto(ctx, "filter-code", "eth/usdt")
		click(t, ctx, "#filter-apply")
		waitFor(t, ctx, `(document.getElementById("filter-error") || {}).textContent?.startsWith("invalid contract_code") && document.getElementById("filter-code").getAttribute("aria-invalid") === "true"`)
		// Back to the page's contract; the calculator kept its mark price throughout.
		click(t, ctx, "#filter-reset")
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="BTC-USDT"]') && document.querySelectorAll("#limits-table tbody tr[data-contract]").length === 1`)
		// The form shows the filter it now holds: none.
		form := evalJS[[]string](t, ctx, `["filter-code", "filter-pair", "filter-type", "filter-business"].map((id) => { const e = document.getElementById(id); return e.tagName === "SELECT" ? e.options[e.selectedIndex].text : e.value; })`)
		if want := []string{"", "", "any", "default (swap)"}; !slices.Equal(form, want) {
			t.Errorf("after Show BTC-USDT the filter's fields read %q, want %q", form, want)
		}
		screenshot(t, ctx, "risk-panels")
	})

	t.Run("each panel has its own route", func(t *testing.T) {
		ethTiers := apiTiers(t, s.URL, "ETH-USDT")
		navigate(t, ctx, s.URL+"/tiers?contract_code=ETH-USDT")
		waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll("#tier-table tbody tr").length === %d && !!document.getElementById("calculator") && !document.getElementById("limits")`, len(ethTiers)))
		if title := evalJS[string](t, ctx, `document.title`); !strings.Contains(title, "ETH-USDT") {
			t.Errorf("title %q", title)
		}
		navigate(t, ctx, s.URL+"/limits?contract_code=ETH-USDT")
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="ETH-USDT"]') && !document.getElementById("tiers")`)
		limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{ContractCode: "ETH-USDT"})
		navigate(t, ctx, s.URL+"/limits?contract_code=BTC-USDT-CQ")
		waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract^="BTC-USDT-"]')`)
		limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{Pair: "BTC-USDT", ContractType: venueapi.TypeQuarter, BusinessType: venueapi.BusinessFutures})
		navigate(t, ctx, s.URL+"/tiers?contract_code=btc")
		waitFor(t, ctx, `(document.getElementById("risk-page-error") || {}).textContent?.startsWith("invalid contract_code")`)
	})

	t.Run("a USDT-denominated ladder", func(t *testing.T) {
		const sol = "SOL-USDT"
		solTiers := apiTiers(t, s.URL, sol)
		if solTiers[0].VolumeUnit != venueapi.UnitUSDT {
			t.Fatalf("the sandbox's %s ladder is in %s: this test needs one in USDT", sol, solTiers[0].VolumeUnit)
		}
		navigate(t, ctx, s.URL+"/tiers?contract_code="+sol)
		waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll("#tier-table tbody tr").length === %d`, len(solTiers)))
		first := evalJS[string](t, ctx, `document.querySelector("#tier-table tbody tr .band").textContent`)
		if want := "0 – " + chartopt.Group(solTiers[0].MaxVolume.String()); first != want {
			t.Errorf("band %q, want %q", first, want)
		}
		if head := evalJS[string](t, ctx, `document.querySelector("#tier-table thead").textContent`); !strings.Contains(head, "Position band (USDT)") {
			t.Errorf("the band header does not say USDT: %q", head)
		}
		// Exactly tier 1's top in USDT buys floor(top / value) contracts, in tier 1.
		solFace := faceValue(t, s.URL, sol)
		choose(t, ctx, "calc-unit", "USDT")
		typeInto(ctx, "calc-leverage", "1")
		typeInto(ctx, "calc-size", solTiers[0].MaxVolume.String())
		waitFor(t, ctx, `!!document.getElementById("calc-margin")`)
		fig := evalJS[map[string]string](t, ctx, jsCalcFigures) // one render's, at one mark price
		pos := fig["calc-position"]
		mark := numberIn(t, pos[strings.Index(pos, "at mark ")+len("at mark "):])
		contracts := solTiers[0].MaxVolume.Div(mark.Mul(solFace)).Floor()
		tier, _ := tierOf(solTiers, contracts.Mul(mark).Mul(solFace))
		if !numberIn(t, pos).Equal(contracts) {
			t.Errorf("position %q, want %s contracts", pos, contracts)
		}
		if got := fig["calc-tier"]; !strings.HasPrefix(got, fmt.Sprint(tier.Tier)+" ") {
			t.Errorf("tier %q, want %d", got, tier.Tier)
		}
		margin := contracts.Mul(mark).Mul(solFace).Mul(tier.MaintenanceMarginRate).Sub(maintAmount(solTiers, tierIndex(solTiers, tier))).RoundCeil(4)
		if got := numberIn(t, fig["calc-margin"]); !got.Equal(margin) {
			t.Errorf("margin %s, want %s", got, margin)
		}
		last := solTiers[len(solTiers)-1].MaxVolume
		if got := fig["calc-max"]; !strings.HasPrefix(got, chartopt.Group(last.String())+" USDT (") {
			t.Errorf("largest position at 1× %q, want %s USDT first", got, last)
		}
	})

	t.Run("on a phone the page is one column without sideways scrolling", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
			chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { chromedp.Run(ctx, chromedp.EmulateReset()) })
		waitDrawn(t, ctx, "BTC-USDT|1min")
		waitFor(t, ctx, `document.querySelectorAll("#tier-table tbody tr").length > 0 && !!document.querySelector('#limits-table tr[data-contract]')`)
		layout := evalJS[map[string]float64](t, ctx, `(() => {
			const r = id => document.getElementById(id).getBoundingClientRect();
			return {pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
				chartBottom: r("chart").bottom, tiersTop: r("tiers").top, tiersRight: r("tiers").right, calcRight: r("calculator").right};
		})()`)
		if layout["pageWidth"] > layout["viewport"] {
			t.Errorf("the page is %v px wide in a %v px viewport", layout["pageWidth"], layout["viewport"])
		}
		if layout["tiersTop"] < layout["chartBottom"] {
			t.Errorf("the tiers (top %v) are not below the chart (bottom %v)", layout["tiersTop"], layout["chartBottom"])
		}
		if layout["tiersRight"] > layout["viewport"] || layout["calcRight"] > layout["viewport"] {
			t.Errorf("a panel overflows the viewport: %v", layout)
		}
		do(t, ctx, `document.getElementById("tiers").scrollIntoView()`)
		screenshot(t, ctx, "risk-phone")
	})
}

func TestRiskPanelsSayNoAccessAndTheChartStillWorks(t *testing.T) {
	venueURL, _ := sandboxtest.Start(t, sandbox.Config{})
	ctx := newBrowser(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"a server without a venue key", map[string]string{"RISKCHART_VENUE_URL": venueURL}},
		{"a server whose key the venue refuses", map[string]string{"RISKCHART_VENUE_URL": venueURL,
			"RISKCHART_ACCESS_KEY": "unknown-key", "RISKCHART_SECRET_KEY": "not-the-secret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env)
			if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/?contract_code=BTC-USDT")); err != nil {
				t.Fatal(err)
			}
			waitDrawn(t, ctx, "BTC-USDT|1min")
			waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && document.getElementById("calc-status")?.textContent.includes("no access")`)
			for _, sel := range []string{"#tier-table tbody tr", "#limits-table tbody tr", "#calc-margin", ".refresh-error"} {
				if n := evalJS[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n != 0 {
					t.Errorf("%d of %s shown without access", n, sel)
				}
			}
			if text := evalJS[string](t, ctx, `document.getElementById("risk-noaccess").textContent`); !strings.Contains(text, "No access to private data on this server") {
				t.Errorf("the notice reads %q", text)
			}
			navigate(t, ctx, s.URL+"/limits?contract_code=ETH-USDT")
			waitFor(t, ctx, `!!document.getElementById("risk-noaccess") && !document.querySelector("#limits-table tbody tr")`)
			screenshot(t, ctx, "risk-no-access")
		})
	}
}

// refreshUntil clicks "Refresh now" about twice a second until cond holds:
// the server's own cache decides when the venue is asked again.
func refreshUntil(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if evalJS[bool](t, ctx, cond) {
			return
		}
		click(t, ctx, "#risk-refresh")
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("after 30 s of refreshing, still not %s; page says %q", cond, evalJS[string](t, ctx, `document.getElementById("limits").innerText`))
}

func TestRiskPanelsShowStaleAndFailedRefreshes(t *testing.T) {
	key := sandbox.Key{Access: "risk-test", Secret: "risk-test-secret", Read: true}
	venueURL, sb := sandboxtest.Start(t, sandbox.Config{Keys: []sandbox.Key{key}})
	s := startServer(t, map[string]string{"RISKCHART_VENUE_URL": venueURL, "RISKCHART_ACCESS_KEY": key.Access, "RISKCHART_SECRET_KEY": key.Secret})
	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL+"/limits?contract_code=BTC-USDT")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.querySelector('#limits-table tr[data-contract="BTC-USDT"]')`)
	const (
		jsAt    = `document.querySelector("#limits-state .age").dataset.at`
		jsTried = `document.getElementById("limits-state").dataset.tried`
		jsRows  = `document.querySelectorAll('#limits-table tr[data-contract="BTC-USDT"]').length === 1`
		jsStale = `!!document.querySelector("#limits-state .stale")`
		jsError = `!!document.querySelector("#limits-state .refresh-error")`
	)
	fresh := evalJS[string](t, ctx, jsAt)

	t.Run("the venue failing is shown as stale, with the server's last numbers and their age", func(t *testing.T) {
		sb.SetFaults(sandbox.Faults{PerPath: map[string]sandbox.Fault{venueapi.PathPositionLimit: {Rate5xx: 1}}})
		refreshUntil(t, ctx, jsStale)
		if !evalJS[bool](t, ctx, jsRows) || evalJS[bool](t, ctx, jsError) {
			t.Error("a stale answer hid the numbers or was called a failure")
		}
		if text := evalJS[string](t, ctx, `document.querySelector("#limits-state .stale").textContent`); !strings.Contains(text, "venue did not answer") {
			t.Errorf("the stale mark reads %q", text)
		}
		// Another stale answer leaves the data's time where it was.
		at, tried := evalJS[string](t, ctx, jsAt), evalJS[string](t, ctx, jsTried)
		refreshUntil(t, ctx, fmt.Sprintf(`%s > %q`, jsTried, tried))
		if now := evalJS[string](t, ctx, jsAt); now != at || !evalJS[bool](t, ctx, jsStale) {
			t.Errorf("a stale answer moved the data's time from %s to %s", at, now)
		}
	})

	var back string
	t.Run("the venue back, the mark goes and the time moves on", func(t *testing.T) {
		sb.SetFaults(sandbox.Faults{})
		refreshUntil(t, ctx, fmt.Sprintf(`!(%s) && %s > %q`, jsStale, jsAt, fresh))
		limitsMatch(t, ctx, s.URL, venueapi.LimitQuery{ContractCode: "BTC-USDT"})
		back = evalJS[string](t, ctx, jsAt)
	})

	t.Run("a failed refresh is shown, and the numbers keep their age", func(t *testing.T) {
		s.Stop(t)
		refreshUntil(t, ctx, jsError)
		if !evalJS[bool](t, ctx, jsRows) {
			t.Error("a failed refresh hid the last numbers")
		}
		if at := evalJS[string](t, ctx, jsAt); at != back {
			t.Errorf("a failed refresh moved the data's time from %s to %s", back, at)
		}
		if text := evalJS[string](t, ctx, `document.querySelector("#limits-state .refresh-error").textContent`); !strings.HasPrefix(text, "Refresh failed at ") || !strings.Contains(text, "No connection to the server") {
			t.Errorf("the failure reads %q", text)
		}
		screenshot(t, ctx, "risk-refresh-failed")
	})
}
