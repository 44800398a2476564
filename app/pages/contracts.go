package pages

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/venueapi"
)

// loadContracts fetches the server's contract list once for the page and
// hands it to set; the page passes it down, so no component fetches it again.
// A failure leaves the list empty: what needs it waits.
func loadContracts(ctx app.Context, set func([]venueapi.Offer)) {
	ctx.Async(func() {
		list, err := api.FetchContracts(ctx)
		if err == nil {
			ctx.Dispatch(func(app.Context) { set(list) })
		}
	})
}
