package api

import (
	"context"
	"fmt"
	"time"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// KLine is an answer of the KLine path.
type KLine struct {
	Candles []venueapi.Candle
	Stale   bool // the server answered from its cache: the venue failed
	// Delivery is, for a contract-type code, the delivery (Unix seconds)
	// since which the code names the future these candles are, by the
	// server's clock (venueapi.KLineEnvelope.Delivery); 0 for other codes.
	Delivery int64
}

// FetchKLine asks the server's KLine path (the venue's own path, unsigned)
// for candles, decoded exactly.
func FetchKLine(ctx context.Context, q venueapi.KLineQuery) (KLine, error) {
	if err := q.Validate(); err != nil {
		return KLine{}, err
	}
	a, err := browser.Fetch(ctx, "GET", browser.Origin()+venueapi.PathKLine+"?"+q.Values().Encode(), "", nil)
	if err != nil {
		return KLine{}, fmt.Errorf("loading %s candles: %w", q.ContractCode, err)
	}
	res, err := ReadKLine(q, a.Status, a.Body)
	return res, withRetryAfter(err, a.Status, a.Header, time.Now())
}

// ReadKLine decodes an answer of the KLine path to q, given with its HTTP
// status. The envelope decides, not the status: the server answers a
// refused query as the venue does, HTTP 200 with the error in the envelope.
func ReadKLine(q venueapi.KLineQuery, status int, body string) (KLine, error) {
	env, err := venueapi.DecodeKLine([]byte(body)) // in one pass, without reflection, when it can
	st := ""
	if env.Status != nil {
		st = *env.Status
	}
	readable := err == nil && (st == venueapi.StatusOK || st == venueapi.StatusError)
	if readable && st != venueapi.StatusOK && env.ErrCode == venueapi.CodeNoSuchContract {
		return KLine{}, ErrUnknownContract // the chart says so in its own words (components.KLineChart)
	}
	if err := envelopeError("loading "+q.ContractCode+" candles", status, readable, st == venueapi.StatusOK, int(env.ErrCode), env.ErrMsg); err != nil {
		return KLine{}, err
	}
	return KLine{Candles: env.Data, Stale: env.Stale, Delivery: int64(env.Delivery)}, nil
}
