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

// Fault is what goes wrong on a path. The rates are shares of requests, 0 to
// 1, drawn one after the other: 5xx, then malformed, then 429, then hang-up.
type Fault struct {
	Latency       time.Duration // added before answering
	Rate5xx       float64       // answered 503 with the venue's error body (1004 busy)
	RateMalformed float64       // answered 200 with a body cut short, not JSON
	Rate429       float64       // answered 429 with code 1032, as if over the limit
	RateHangup    float64       // connection closed mid-answer
}

// SetFaults replaces the injected faults; safe while serving.
func (s *Sandbox) SetFaults(f Faults) {
	s.faultsMu.Lock()
	defer s.faultsMu.Unlock()
	s.faults = f
}

// injectFault applies the fault of path, if any, and reports whether it
// answered the request itself.
func (s *Sandbox) injectFault(w http.ResponseWriter, r *http.Request, path string) bool {
	s.faultsMu.Lock()
	f, ok := s.faults.PerPath[path]
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
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done(): // the client left, or the sandbox is shutting down
			return true
		}
	}
	p := float64(roll>>11) / (1 << 53) // uniform in [0, 1)
	switch {
	case p < f.Rate5xx:
		s.writeError(w, path, http.StatusServiceUnavailable, venueapi.CodeBusy, "venue busy (injected fault)")
	case p < f.Rate5xx+f.RateMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok","data":[{"id":`))
	case p < f.Rate5xx+f.RateMalformed+f.Rate429:
		w.Header().Set("Retry-After", "1")
		s.writeError(w, path, http.StatusTooManyRequests, venueapi.CodeRateLimited, "request rate over the limit (injected fault)")
	case p < f.Rate5xx+f.RateMalformed+f.Rate429+f.RateHangup:
		hangUp(w)
	default:
		return false
	}
	s.log.Debug("injected a fault", "path", path, "roll", p)
	return true
}

// hangUp writes the head of an answer promising more than it sends, and
// closes the connection.
func hangUp(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil { // a recorder in a test: a 502 is the nearest answer
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer conn.Close()
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"status\":\"ok\",\"data\":[")
	buf.Flush()
}
