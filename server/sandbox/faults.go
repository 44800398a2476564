package sandbox

import (
	"net/http"
	"time"

	"github.com/riskchart/riskchart/venueapi"
)

// Faults selects failures to inject, per venue path; off when empty.
type Faults struct {
	// PerPath maps a venue path (venueapi.Path*) to its fault; the key ""
	// applies to every path without its own.
	PerPath map[string]Fault
}

// Fault is what can go wrong on a path. Rates are shares of requests, 0 to 1.
type Fault struct {
	Latency       time.Duration // added before answering
	Rate5xx       float64       // answered 503 with the venue's error body (1004 busy)
	RateMalformed float64       // answered 200 with a body that is not the envelope
	Rate429       float64       // answered 429 with code 1032
	RateHangup    float64       // connection closed mid-answer
}

// SetFaults replaces the injected faults; safe while serving.
func (s *Sandbox) SetFaults(f Faults) {
	s.faultsMu.Lock()
	defer s.faultsMu.Unlock()
	s.faults = f
}

// injectFault applies the fault of r's path, if any, and reports whether it
// answered the request itself.
func (s *Sandbox) injectFault(w http.ResponseWriter, r *http.Request) bool {
	s.faultsMu.Lock()
	f, ok := s.faults.PerPath[r.URL.Path]
	if !ok {
		f, ok = s.faults.PerPath[""]
	}
	var roll uint64
	if ok {
		roll = s.dice.next()
	}
	s.faultsMu.Unlock()
	if !ok {
		return false
	}
	if f.Latency > 0 {
		select {
		case <-time.After(f.Latency):
		case <-r.Context().Done():
			return true
		}
	}
	p := float64(roll>>11) / (1 << 53) // uniform in [0, 1)
	switch {
	case p < f.Rate5xx:
		s.writeError(w, r.URL.Path, http.StatusServiceUnavailable, venueapi.CodeBusy, "venue busy")
	case p < f.Rate5xx+f.RateMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok","data":[{"id":`))
	case p < f.Rate5xx+f.RateMalformed+f.Rate429:
		w.Header().Set("Retry-After", "1")
		s.writeError(w, r.URL.Path, http.StatusTooManyRequests, venueapi.CodeRateLimited, "request rate over the limit")
	case p < f.Rate5xx+f.RateMalformed+f.Rate429+f.RateHangup:
		hangup(w)
	default:
		return false
	}
	return true
}

// hangup writes the head of an answer promising more than it sends, and
// closes the connection.
func hangup(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer conn.Close()
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"status\":\"ok\",\"data\":[")
	buf.Flush()
}
