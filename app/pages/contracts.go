package pages

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// loadContracts fetches the server's contract list once for the page and
// hands it to set; the page passes it down, so no component fetches it again.
// A failure is tried again every few seconds while the page is open, so
// what needs the list does not wait for ever.
func loadContracts(ctx app.Context, set func([]venueapi.Offer)) {
	ctx.Async(func() {
		for {
			list, err := api.FetchContracts(ctx)
			if err == nil {
				ctx.Dispatch(func(app.Context) { set(list) })
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(contractsRetry):
			}
		}
	})
}

// adoptContracts takes, once, the contract list the server put in the page
// (docs/architecture.md, "The page before the app"); ok is false when the page
// holds none, or one that cannot be read: the page then fetches it.
func adoptContracts() ([]venueapi.Offer, bool) {
	body, ok := browser.TakeFirstContracts()
	if !ok {
		return nil, false
	}
	list, err := api.ReadContracts(body)
	return list, err == nil && len(list) > 0
}

// contractsRetry is the pause before asking again for a list that failed.
const contractsRetry = 5 * time.Second

// priceDecimals is the price precision of contract code in list, or -1 when
// the list does not hold it (or has not come yet): a chart then writes
// prices in the venue's digits.
func priceDecimals(list []venueapi.Offer, code string) int32 {
	for _, c := range list {
		if c.Code == code {
			return c.PriceDecimals
		}
	}
	return -1
}
