package gateway

import (
	"errors"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/riskchart/riskchart/server/internal/venue"
)

// metrics are the gateway's Prometheus series, on the configured registry.
type metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	cache      *prometheus.CounterVec
	venueCalls *prometheus.CounterVec
	throttled  *prometheus.CounterVec
	local      *prometheus.CounterVec // private requests answered without a venue call: unlisted, combination, share_spent
}

func newMetrics(reg *prometheus.Registry, v *venue.Client) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_requests_total", Help: "Requests answered, by route and status."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "riskchart_request_duration_seconds", Help: "Time to answer, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}}, []string{"route"}),
		cache:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_cache_total", Help: "Cache lookups, by cache and result (hit, miss, stale)."}, []string{"cache", "result"}),
		venueCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_venue_calls_total", Help: "Calls to the venue, by endpoint and outcome."}, []string{"endpoint", "outcome"}),
		throttled:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_throttled_total", Help: "Requests refused with 429, by budget."}, []string{"budget"}),
		local: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "riskchart_private_refused_locally_total",
			Help: "Private requests refused without a venue call, by reason (unlisted, combination, share_spent)."}, []string{"reason"}),
	}
	reg.MustRegister(m.requests, m.latency, m.cache, m.venueCalls, m.throttled, m.local,
		// The process as the operator sees it: goroutines, memory, GC, open files.
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newVenueCollector(v),
	)
	return m
}

// countPrivateLookup counts a lookup of the tiers or limits cache, named by
// its key's first part: a miss when the request called the venue, a hit
// when the cache answered it.
func (m *metrics) countPrivateLookup(key string, called bool, err error) {
	cache, _, _ := strings.Cut(key, "|")
	switch {
	case called:
		m.cache.WithLabelValues(cache, "miss").Inc()
	case err == nil:
		m.cache.WithLabelValues(cache, "hit").Inc()
	}
}

// countVenueCall counts a call to the venue's endpoint (venue.EndpointKLine,
// …) by how it ended.
func (m *metrics) countVenueCall(endpoint string, err error) {
	m.venueCalls.WithLabelValues(endpoint, outcome(err)).Inc()
}

// outcome names a venue call's result for the venue_calls metric.
func outcome(err error) string {
	var rl *venue.RateLimitedError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, new(*venue.CircuitOpenError)):
		return "not_sent" // a breaker refused it: the venue failed it just before
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

// venueCollector reads the venue client at each scrape: its budgets, both
// from one QuotaStatus, and its breakers (docs/decisions.md#failure-memory).
type venueCollector struct {
	v                           *venue.Client
	privateBudget, publicBudget *prometheus.Desc
	open, trials, refused       *prometheus.Desc
}

func newVenueCollector(v *venue.Client) venueCollector {
	return venueCollector{v: v,
		privateBudget: prometheus.NewDesc("riskchart_venue_budget_private_available", "Private (signed) venue requests available now.", nil, nil),
		publicBudget:  prometheus.NewDesc("riskchart_venue_budget_public_available", "Public (KLine) venue requests available now.", nil, nil),
		open: prometheus.NewDesc("riskchart_venue_breaker_open",
			"1 while a breaker refuses venue calls unsent (key: the venue refuses the server's key; an endpoint: the venue fails it).", []string{"breaker"}, nil),
		trials: prometheus.NewDesc("riskchart_venue_breaker_trials_total",
			"Trial calls an open breaker let out, one per wait.", []string{"breaker"}, nil),
		refused: prometheus.NewDesc("riskchart_venue_breaker_refused_total",
			"Venue calls refused unsent by an open breaker.", []string{"breaker"}, nil),
	}
}

func (c venueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.privateBudget
	ch <- c.publicBudget
	ch <- c.open
	ch <- c.trials
	ch <- c.refused
}

func (c venueCollector) Collect(ch chan<- prometheus.Metric) {
	send := func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		if m, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil { // the labels each Desc names, always given
			ch <- m
		}
	}
	private, public := c.v.QuotaStatus()
	send(c.privateBudget, prometheus.GaugeValue, private.Available)
	send(c.publicBudget, prometheus.GaugeValue, public.Available)
	for _, b := range c.v.Breakers() {
		open := 0.0
		if b.Open {
			open = 1
		}
		send(c.open, prometheus.GaugeValue, open, b.Name)
		send(c.trials, prometheus.CounterValue, float64(b.Trials), b.Name)
		send(c.refused, prometheus.CounterValue, float64(b.Refused), b.Name)
	}
}
