package venue

import (
	"context"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

// PositionLimits fetches the account's position limits (endpoint 2, signed):
// a POST with the signature in the query string and the business parameters
// as a JSON body, which is not signed (docs/decisions.md, Position-limit
// payload). A query that breaks a rule is an *InvalidRequestError and costs
// no request.
func (c *Client) PositionLimits(ctx context.Context, q venueapi.LimitQuery) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	req := request{method: http.MethodPost, path: venueapi.PathPositionLimit, body: q.AppendJSON(nil), signed: true}
	a, err := fetch(ctx, c, req, decodeWithData[venueapi.PositionLimit])
	if err != nil {
		return nil, fmt.Errorf("fetching position limits: %w", err)
	}
	return &venueapi.LimitEnvelope{Status: venueapi.StatusOK, Data: a.Data, Ts: int64(a.Ts)}, nil
}
