package cluster

import "time"

// Late is tooLate, for the tests of package cluster_test.
func (b *Budget) Late(r Reservation, now time.Time) bool { return b.tooLate(r, now) }
