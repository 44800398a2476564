package sandbox

import (
	"time"

	"net/http"
	"strconv"

	"github.com/riskchart/riskchart/venueapi"
)

// futureBasisPPM lifts each future over its swap, further for later deliveries.
var futureBasisPPM = map[venueapi.ContractType]int64{
	venueapi.TypeSwap: 0, venueapi.TypeThisWeek: 300, venueapi.TypeNextWeek: 700,
	venueapi.TypeQuarter: 2500, venueapi.TypeNextQuarter: 5500,
}

// serveKLine answers endpoint 3 (public): the rules of venueapi.ParseKLineQuery
// (DECISIONS.md, KLine), candles from the market as it stands now.
func (s *Sandbox) serveKLine(w http.ResponseWriter, r *http.Request) {
	q, err := venueapi.ParseKLineQuery(r.URL.Query())
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
	env.Data = s.candles(m, q, now)
	b := env.AppendJSON(make([]byte, 0, 64+200*len(env.Data)))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// candles answers a validated query for market m.
func (s *Sandbox) candles(m Market, q venueapi.KLineQuery, now time.Time) []venueapi.Candle {
	sr := s.series[m.Base]
	scale := 1_000_000 + futureBasisPPM[m.Type]
	q = q.Effective()
	if q.Range {
		return sr.candles(q.Period, q.From, q.To, now, scale)
	}
	return sr.latest(q.Period, q.Size, now, scale)
}
