package venue

import (
	"context"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

// Tiers fetches a swap's risk-limit tiers (endpoint 1, signed GET). The
// margin mode defaults to cross, the only one. A query that breaks a rule is
// an *InvalidRequestError and costs no request.
func (c *Client) Tiers(ctx context.Context, q venueapi.TierQuery) (*venueapi.TierEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	if q.MarginMode == "" {
		q.MarginMode = venueapi.MarginCross
	}
	var a answer[venueapi.Tier]
	req := request{method: http.MethodGet, path: venueapi.PathTiers, query: q.Values(), signed: true,
		decode: func(raw []byte) (status, error) {
			var err error
			if a, err = decodeAnswer[venueapi.Tier](raw); err == nil && a.Data == nil {
				err = errNoData
			}
			return a.status, err
		}}
	if err := c.call(ctx, req); err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", q.ContractCode, err)
	}
	return &venueapi.TierEnvelope{Code: venueapi.CodeOK, Message: a.Message, Data: a.Data, Ts: int64(a.Ts)}, nil
}
