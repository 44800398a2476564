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
	req := request{method: http.MethodGet, path: venueapi.PathTiers, query: q.Values(), signed: true}
	a, err := fetch(ctx, c, req, decodeWithData[venueapi.Tier])
	if err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", q.ContractCode, err)
	}
	return &venueapi.TierEnvelope{Code: venueapi.CodeOK, Message: a.Message, Data: a.Data, Ts: int64(a.Ts)}, nil
}
