package venue

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/riskchart/riskchart/venueapi"
)

// KLine fetches candles (endpoint 3, public, unsigned): the latest Size, or
// the range From..To. A query that breaks a rule is an *InvalidRequestError
// and costs no request. Data is never nil on success (the venue may leave it
// out: it is optional).
func (c *Client) KLine(ctx context.Context, q venueapi.KLineQuery) (*venueapi.KLineEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	a, err := fetch(ctx, c, request{method: http.MethodGet, path: venueapi.PathKLine, query: q.Values()}, decodeKLine)
	if err != nil {
		return nil, fmt.Errorf("fetching %s %s candles: %w", q.ContractCode, q.Period, err)
	}
	if a.Data == nil {
		a.Data = []venueapi.Candle{}
	}
	return &venueapi.KLineEnvelope{Ch: a.Ch, Status: venueapi.StatusOK, Ts: int64(a.Ts), Data: a.Data}, nil
}

// KLineRange fetches every candle of period p with an id in [from, to],
// ascending, paging in chunks of at most 2000 candles. Chunks meet without
// gaps or overlap (each starts at the candle after the last one asked for),
// and a candle outside its chunk or already held is dropped, so the result
// has no duplicates whatever the venue sends. On an error it returns the
// candles fetched so far with the error.
func (c *Client) KLineRange(ctx context.Context, contractCode string, p venueapi.Period, from, to int64) ([]venueapi.Candle, error) {
	out, _, err := c.KLineRangeStamped(ctx, contractCode, p, from, to)
	return out, err
}

// KLineRangeStamped is KLineRange with the ts (Unix ms) of every answer
// its candles came from: the venue's clock, which for a contract-type code
// decides which future the candles are (docs/decisions.md#contract-type-codes).
func (c *Client) KLineRangeStamped(ctx context.Context, contractCode string, p venueapi.Period, from, to int64) ([]venueapi.Candle, []int64, error) {
	probe := venueapi.KLineQuery{ContractCode: contractCode, Period: p, From: from, To: from, Range: true}
	if err := probe.Validate(); err != nil {
		return nil, nil, &InvalidRequestError{Err: err}
	}
	switch {
	case to > venueapi.KLineMaxSeconds: // else pages of nothing up to it
		return nil, nil, &InvalidRequestError{Err: &venueapi.ParamError{Param: "to", Rule: venueapi.SecondsRule, Value: fmt.Sprint(to)}}
	case from > to:
		return nil, nil, &InvalidRequestError{Err: &venueapi.ParamError{Param: "from", Rule: "must not be after to", Value: fmt.Sprint(from)}}
	}
	start := p.Ceil(from)
	out := make([]venueapi.Candle, 0, min(p.Count(from, to), 1<<16))
	var stamps []int64
	for start <= to {
		end := chunkEnd(p, start, to)
		env, err := c.KLine(ctx, venueapi.KLineQuery{ContractCode: contractCode, Period: p, From: start, To: end, Range: true})
		if err != nil {
			return out, stamps, err
		}
		stamps = append(stamps, env.Ts)
		data := env.Data
		if !slices.IsSortedFunc(data, byID) {
			data = slices.SortedStableFunc(slices.Values(data), byID)
		}
		for _, k := range data {
			if k.ID < start || k.ID > end || (len(out) > 0 && k.ID <= out[len(out)-1].ID) {
				continue // outside the chunk asked for, or already held
			}
			out = append(out, k)
		}
		start = p.Next(end)
	}
	return out, stamps, nil
}

// chunkEnd returns the start of the last candle of the chunk beginning at
// start: at most 2000 candles, none after to.
func chunkEnd(p venueapi.Period, start, to int64) int64 {
	if n := p.Seconds(); n > 0 {
		return min(start+(venueapi.KLineMaxSize-1)*n, start+(to-start)/n*n)
	}
	end := start // 1mon: months differ in length, so walk the calendar
	for i := 1; i < venueapi.KLineMaxSize && p.Next(end) <= to; i++ {
		end = p.Next(end)
	}
	return end
}

func byID(a, b venueapi.Candle) int {
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}
