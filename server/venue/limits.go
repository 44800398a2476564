package venue

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

var errMissingData = errors.New("the answer has no data")

// PositionLimits fetches the account's position limits (endpoint 2, signed):
// POST with the signature in the query string and the business parameters
// as a JSON body (DECISIONS.md, Signing).
func (c *Client) PositionLimits(ctx context.Context, q venueapi.LimitQuery) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	var env venueapi.LimitEnvelope
	if err := c.call(ctx, request{method: http.MethodPost, path: venueapi.PathPositionLimit, body: q, signed: true}, &env); err != nil {
		return nil, fmt.Errorf("fetching position limits: %w", err)
	}
	if env.Data == nil {
		return nil, fmt.Errorf("fetching position limits: %w", &UnavailableError{Op: "POST " + venueapi.PathPositionLimit, HTTPStatus: http.StatusOK, Err: errMissingData})
	}
	return &env, nil
}
