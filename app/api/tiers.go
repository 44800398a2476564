package api

import (
	"context"
	"fmt"

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
	a, err := browser.Fetch(ctx, methodGet, browser.Origin()+venueapi.PathTiers+"?"+q.Values().Encode(), "", header)
	if err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", code, err)
	}
	return ReadTiers(code, a.Status, a.Body)
}

// ReadTiers decodes an answer of the tier path for code, given with its HTTP
// status. The envelope decides, not the status (see ReadKLine).
func ReadTiers(code string, status int, body string) (*venueapi.TierEnvelope, error) {
	env, jsonErr := venueapi.DecodeTiers([]byte(body)) // in one pass when it can: the app reads the page's tiers in its first run
	if err := refusal(status, env.Code, env.Message); err != nil {
		return nil, err
	}
	if err := envelopeError("fetching the tiers of "+code, status, jsonErr == nil && env.Code != 0, env.Code == venueapi.CodeOK, env.Code, env.Message); err != nil {
		return nil, err
	}
	return &env, nil
}
