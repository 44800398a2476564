package venue

import (
	"context"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

// Tiers fetches a swap's risk-limit tiers (endpoint 1, signed).
func (c *Client) Tiers(ctx context.Context, q venueapi.TierQuery) (*venueapi.TierEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, &InvalidRequestError{Err: err}
	}
	if q.MarginMode == "" {
		q.MarginMode = venueapi.MarginCross
	}
	var env venueapi.TierEnvelope
	if err := c.call(ctx, request{method: http.MethodGet, path: venueapi.PathTiers, query: q.Values(), signed: true}, &env); err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", q.ContractCode, err)
	}
	if env.Data == nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", q.ContractCode, &UnavailableError{Op: "GET " + venueapi.PathTiers, HTTPStatus: http.StatusOK, Err: errMissingData})
	}
	return &env, nil
}
