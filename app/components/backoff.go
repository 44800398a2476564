package components

import "time"

// One backoff serves every request the app repeats by itself: the chart's
// stream reconnections (livestatus.go), its polls, and the risk panel's
// refreshes (fetchstate.go). After failures in a row it waits a first wait,
// doubling with each failure up to a most, drawn from the upper half by a
// jitter in [0, 1) so that many tabs behind one address spread out; and
// never less than the server's Retry-After, which its 429 (the client's
// rate spent) or a 503 may name (docs/architecture.md#backing-off).

// backoffDelay is the wait after failures failures in a row (0: the first):
// first, doubling up to most, drawn from its upper half by jitter.
func backoffDelay(failures int, first, most time.Duration, jitter float64) time.Duration {
	d := min(first<<min(max(failures, 0), 10), most)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// notBefore is the least wait the server asked for, retryAfter (0: none),
// spread by jitter over the quarter after it: tabs the server turned away
// together do not all come back in the same instant.
func notBefore(retryAfter time.Duration, jitter float64) time.Duration {
	if retryAfter <= 0 {
		return 0
	}
	return retryAfter + time.Duration(jitter*float64(retryAfter/4))
}

// retryDelay is the wait before asking again after failures failures in a
// row: the backoff (backoffDelay), or the server's Retry-After (notBefore)
// when that is longer.
func retryDelay(failures int, first, most time.Duration, jitter float64, retryAfter time.Duration) time.Duration {
	return max(backoffDelay(failures, first, most, jitter), notBefore(retryAfter, jitter))
}

// pollMost bounds a chart's wait between polls that keep failing.
const pollMost = 30 * time.Second

// pollBackoff is a chart's polls (and the fetches of the candles they
// found missed) failing in a row, and when the chart may poll again.
type pollBackoff struct {
	failures int
	until    time.Time // no poll before; zero: at the chart's pace
	err      error     // the last failure; nil after a success
}

// failed records a failure at now, err, whose Retry-After is retryAfter,
// of polls at pace: the next poll waits from one to two paces, doubling
// with each failure in a row up to pollMost, and at least retryAfter.
func (b *pollBackoff) failed(err error, retryAfter time.Duration, now time.Time, pace time.Duration, jitter float64) {
	b.until = now.Add(retryDelay(b.failures, 2*pace, max(pollMost, 2*pace), jitter, retryAfter))
	b.failures++
	b.err = err
}

// waits reports whether the chart must not poll yet at now.
func (b pollBackoff) waits(now time.Time) bool { return now.Before(b.until) }
