package cluster

import "time"

// localLog is the sliding-window log of the turns one replica takes alone,
// while Redis is out of reach: at most limit turns in any window, each no
// earlier than the last. Its methods take the time; the Budget holds the lock.
type localLog struct {
	limit  int
	window time.Duration
	turns  []time.Time // ascending; none older than a window before the last reserve
}

// reserve takes n turns at the first time at or after now and notBefore that
// keeps every window within limit, when that time is at most longest after
// now. Either way it returns that time.
func (l *localLog) reserve(now, notBefore time.Time, n int, longest time.Duration) (time.Time, bool) {
	l.trim(now)
	at := later(now, notBefore)
	if len(l.turns) > 0 {
		at = later(at, l.turns[len(l.turns)-1])
	}
	// The turn limit-n+1 from the end must have left the window.
	if k := l.limit - n + 1; len(l.turns) >= k {
		at = later(at, l.turns[len(l.turns)-k].Add(l.window))
	}
	if at.Sub(now) > longest {
		return at, false
	}
	for range n {
		l.turns = append(l.turns, at)
	}
	return at, true
}

// cancel gives back n turns taken at at and not used.
func (l *localLog) cancel(at time.Time, n int) {
	for i := len(l.turns) - 1; i >= 0 && n > 0; i-- {
		if l.turns[i].Equal(at) {
			l.turns = append(l.turns[:i], l.turns[i+1:]...)
			n--
		}
	}
}

// trim forgets the turns that no longer count at now.
func (l *localLog) trim(now time.Time) {
	i := 0
	for i < len(l.turns) && now.Sub(l.turns[i]) >= l.window {
		i++
	}
	l.turns = append(l.turns[:0], l.turns[i:]...)
}

// ages are the turns still counting at now, as durations before now
// (negative: still to come), for the shared log.
func (l *localLog) ages(now time.Time) []time.Duration {
	l.trim(now)
	a := make([]time.Duration, len(l.turns))
	for i, t := range l.turns {
		a[i] = now.Sub(t)
	}
	return a
}

// free is how many turns could be taken at once at now.
func (l *localLog) free(now time.Time) int {
	n := 0
	for _, t := range l.turns {
		if now.Sub(t) < l.window {
			n++
		}
	}
	return max(0, l.limit-n)
}

// reset forgets every turn: they are in the shared log now.
func (l *localLog) reset() { l.turns = l.turns[:0] }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
