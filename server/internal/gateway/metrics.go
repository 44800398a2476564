package gateway

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/riskchart/riskchart/server/internal/venue"
)

// metrics are the gateway's Prometheus series, on the configured registry.
type metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	cache      *prometheus.CounterVec
	venueCalls *prometheus.CounterVec
	throttled  *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry, v *venue.Client) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_requests_total", Help: "Requests answered, by route and status."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "riskchart_request_duration_seconds", Help: "Time to answer, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}}, []string{"route"}),
		cache:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_cache_total", Help: "Cache lookups, by cache and result (hit, miss, stale)."}, []string{"cache", "result"}),
		venueCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_venue_calls_total", Help: "Calls to the venue, by endpoint and outcome."}, []string{"endpoint", "outcome"}),
		throttled:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_throttled_total", Help: "Requests refused with 429, by budget."}, []string{"budget"}),
	}
	budget := func(private bool) func() float64 {
		return func() float64 {
			p, q := v.QuotaStatus()
			if private {
				return p.Available
			}
			return q.Available
		}
	}
	reg.MustRegister(m.requests, m.latency, m.cache, m.venueCalls, m.throttled,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_venue_budget_private_available", Help: "Private (signed) venue requests available now."}, budget(true)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "riskchart_venue_budget_public_available", Help: "Public (KLine) venue requests available now."}, budget(false)),
	)
	return m
}

// outcome names a venue call's result for the venue_calls metric.
func outcome(err error) string {
	var rl *venue.RateLimitedError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &rl) && rl.Venue:
		return "venue_rate_limited" // the venue refused: our budget let too much through
	case errors.As(err, &rl):
		return "budget_spent" // refused here, never sent
	case timedOut(err):
		return "timeout"
	case staleable(err):
		return "unavailable"
	}
	return "error"
}
