package components

import (
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/riskchart/riskchart/app/api"
	"github.com/riskchart/riskchart/app/browser"
)

// A chart that could not load because no answer came (offline, or the
// server down), or that shows the saved chart of a visit without network,
// loads again by itself: at once when the browser says its connection is
// back or the tab comes into view, and every unansweredRetry meanwhile,
// for a server that was down while the network was up. A chart the server
// answered with an error waits for its Retry button.

// unansweredRetry is how often a chart that got no answer asks again.
const unansweredRetry = 5 * time.Second

// chartRetry is what the chart knows of its last failed load.
type chartRetry struct {
	unanswered bool      // the last load failed with no answer at all
	failedAt   time.Time // when it failed
	stop       []func()  // stops listening to the browser
}

// retryWhenBack listens for the connection coming back and the page coming
// into view.
func (k *KLineChart) retryWhenBack(ctx app.Context) {
	back := func() { ctx.Dispatch(func(ctx app.Context) { k.retryIfDown(ctx, true) }) }
	k.retry.stop = append(k.retry.stop, browser.WhenOnline(back), browser.WhenVisible(back))
}

// stopRetrying stops listening.
func (k *KLineChart) stopRetrying() {
	for _, stop := range k.retry.stop {
		stop()
	}
	k.retry.stop = nil
}

// retryIfDown loads the chart again when it failed for want of an answer
// (at once when now is set, else once unansweredRetry has passed since the
// failure), or, when now is set, when it shows a saved chart (the poll
// loop replaces that one as soon as it gets an answer).
func (k *KLineChart) retryIfDown(ctx app.Context, now bool) {
	if now && api.Unanswered(k.pollBack.err) {
		k.pollBack = pollBackoff{} // the connection is back: poll at once, not after the backoff
	}
	if k.loading {
		return
	}
	down := k.failed && k.retry.unanswered || now && k.offline && !k.savedAt.IsZero()
	if !down || !now && time.Since(k.retry.failedAt) < unansweredRetry {
		return
	}
	k.reload(ctx)
}

// unpoint hides the crosshair, and the legend shows the latest candle
// again, when the view moves without the pointer: the legend and the
// crosshair then name the same candle until the pointer moves.
func (k *KLineChart) unpoint() {
	if k.hover < 0 || k.chart == nil {
		return
	}
	k.chart.HidePointer()
	k.hover = -1
}
