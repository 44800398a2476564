package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// FetchLimits asks the server's position-limit path for the account's
// limits; header is Headers' answer.
func FetchLimits(ctx context.Context, q venueapi.LimitQuery, header map[string]string) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("encoding the position-limit query: %w", err)
	}
	a, err := browser.Fetch(ctx, http.MethodPost, browser.Origin()+venueapi.PathPositionLimit, string(body), header)
	if err != nil {
		return nil, fmt.Errorf("fetching position limits: %w", err)
	}
	var env venueapi.LimitEnvelope
	jsonErr := json.Unmarshal([]byte(a.Body), &env)
	if err := refusal(a.Status, env.ErrCode, env.ErrMsg); err != nil {
		return nil, err
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("fetching position limits: the server answered HTTP %d with something unreadable", a.Status)
	}
	if env.Status != venueapi.StatusOK {
		return nil, fmt.Errorf("fetching position limits: %s (code %d)", env.ErrMsg, env.ErrCode)
	}
	return &env, nil
}
