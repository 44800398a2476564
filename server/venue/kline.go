package venue

import (
	"context"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

// KLine fetches candles (endpoint 3, public): the latest Size, or the range
// From..To. A query that breaks a rule is an *InvalidRequestError and costs
// no request.
func (c *Client) KLine(ctx context.Context, q venueapi.KLineQuery) (*venueapi.KLineEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	var env venueapi.KLineEnvelope
	if err := c.call(ctx, request{method: http.MethodGet, path: venueapi.PathKLine, query: q.Values()}, &env); err != nil {
		return nil, fmt.Errorf("fetching %s %s candles: %w", q.ContractCode, q.Period, err)
	}
	if env.Data == nil {
		env.Data = []venueapi.Candle{}
	}
	return &env, nil
}

// KLineRange fetches every candle of period p with an id in [from, to],
// paging in chunks of at most 2000 candles, ascending, without duplicates or
// gaps at chunk edges (each chunk starts after the last id of the one before).
func (c *Client) KLineRange(ctx context.Context, contractCode string, p venueapi.Period, from, to int64) ([]venueapi.Candle, error) {
	probe := venueapi.KLineQuery{ContractCode: contractCode, Period: p, From: from, To: from, Range: true}
	if err := probe.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	if from > to {
		return nil, &InvalidRequestError{Err: &venueapi.ParamError{Param: "from", Rule: "must not be after to"}}
	}
	var out []venueapi.Candle
	for start := p.Start(from); start <= to; {
		if start < from {
			start = p.Next(start)
			continue
		}
		end := start
		for i := 1; i < venueapi.KLineMaxSize && p.Next(end) <= to; i++ {
			end = p.Next(end)
		}
		env, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: contractCode, Period: p, From: start, To: end, Range: true})
		if err != nil {
			return out, err
		}
		for _, k := range env.Data {
			if k.ID < start || k.ID > end || (len(out) > 0 && k.ID <= out[len(out)-1].ID) {
				continue // outside the chunk asked for, or already held
			}
			out = append(out, k)
		}
		start = p.Next(end)
	}
	return out, nil
}
