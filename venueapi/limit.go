package venueapi

import "time"

// Limit is a request budget: at most Requests in a window of Per. The venue
// declares its limits in this shape, its client budgets by it, and the
// sandbox enforces it.
type Limit struct {
	Requests int
	Per      time.Duration
}

// PrivateLimit is the venue's limit on endpoints 1 and 2 together, per
// access key (docs/venue.md, Limits).
func PrivateLimit() Limit { return Limit{Requests: 72, Per: 3 * time.Second} }

// PublicLimit is the venue's limit on endpoint 3, per client IP.
func PublicLimit() Limit { return Limit{Requests: 800, Per: time.Second} }
