package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/app/browser"
	"github.com/riskchart/riskchart/venueapi"
)

// FetchTiers asks the server's tier path (signed by the server) for a
// swap's tiers; header is Headers' answer.
func FetchTiers(ctx context.Context, code string, header map[string]string) (*venueapi.TierEnvelope, error) {
	q := venueapi.TierQuery{ContractCode: code}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	a, err := browser.Fetch(ctx, http.MethodGet, browser.Origin()+venueapi.PathTiers+"?"+q.Values().Encode(), "", header)
	if err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", code, err)
	}
	var env venueapi.TierEnvelope
	jsonErr := json.Unmarshal([]byte(a.Body), &env)
	if err := refusal(a.Status, env.Code, env.Message); err != nil {
		return nil, err
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: the server answered HTTP %d with something unreadable", code, a.Status)
	}
	if env.Code != venueapi.CodeOK {
		return nil, fmt.Errorf("fetching the tiers of %s: %s (code %d)", code, env.Message, env.Code)
	}
	return &env, nil
}
