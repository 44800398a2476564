package sandbox

import (
	"net/http"
	"strconv"

	"github.com/riskchart/riskchart/venueapi"
)

// serveKLine answers endpoint 3 (public): the rules of
// venueapi.ParseKLineQuery (docs/decisions.md, KLine), candles of the market
// as it stands now, ch echoing the code as requested.
func (s *Sandbox) serveKLine(w http.ResponseWriter, r *http.Request) {
	params, err := venueapi.ParseQuery(r.URL.RawQuery) // a broken escape is 1030, not a dropped parameter
	if err != nil {
		s.writeParamError(w, venueapi.PathKLine, err)
		return
	}
	q, err := venueapi.ParseKLineQuery(params)
	if err != nil {
		s.writeParamError(w, venueapi.PathKLine, err)
		return
	}
	now := s.now()
	m, err := resolve(q.ContractCode, now)
	if err != nil {
		s.writeParamError(w, venueapi.PathKLine, err)
		return
	}
	env := venueapi.KLineEnvelope{Ch: venueapi.Channel(q.ContractCode, q.Period), Status: venueapi.StatusOK, Ts: now.UnixMilli()}
	win := s.window(m, now)
	if q = q.Effective(); q.Range {
		env.Data = win.candles(q.Period, q.From, q.To)
	} else {
		env.Data = win.latest(q.Period, q.Size)
	}
	b := env.AppendJSON(make([]byte, 0, 128+256*len(env.Data)))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}
