package gateway

import (
	"net/http"
	"sync"
	"time"
)

// Why the gateway refused a request, as the thinned log line names it.
const (
	refusalHost        = "host_name"    // a Host the server does not answer for (hostChecked)
	refusalCrossSite   = "cross_site"   // private data, or a sign-in, asked by another site's page (crossSite)
	refusalViewerToken = "viewer_token" // private data, or a sign-in, without a valid viewer token
	refusalEmbedLink   = "embed_link"   // an embed whose link does not cover the panel
	refusalRate        = "rate"         // any 429: the client past its rate, or the venue's budget spent
)

// refuse notes on r's log line why the gateway refused it, so that the log
// thins a flood of such refusals.
func refuse(r *http.Request, reason string) {
	if rec, ok := r.Context().Value(requestKey).(*statusRecorder); ok {
		rec.refusal = reason
	}
}

// refusals thins the request log of refused requests: a flood of them (a
// client past its rate, a page probing with another Host) would otherwise
// write a line each. Per reason, at most one line a second, counting the
// refusals since the previous line. There is no timer: what is counted when
// a flood stops goes out with the next refusal for that reason, and
// riskchart_requests_total counts every request as it happens. See
// docs/decisions.md#refusals-in-the-log.
type refusals struct {
	mu sync.Mutex
	by map[string]*refusalRun // keyed by the reasons above, so it stays small
}

// refusalRun is one reason's refusals since its last line.
type refusalRun struct {
	logged time.Time
	count  int
}

func newRefusals() *refusals { return &refusals{by: map[string]*refusalRun{}} }

// note counts one refusal for reason at now, and says whether a line is due
// and how many refusals it stands for.
func (f *refusals) note(reason string, now time.Time) (count int, due bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	run := f.by[reason]
	if run == nil {
		run = &refusalRun{}
		f.by[reason] = run
	}
	run.count++
	if !run.logged.IsZero() && now.Sub(run.logged) < time.Second {
		return 0, false
	}
	count = run.count
	run.logged, run.count = now, 0
	return count, true
}
