package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riskchart/riskchart/venueapi"
)

// errNoAccess is the server refusing private data: it has no venue key, or
// this viewer has no token.
var errNoAccess = errors.New("no access to private data on this server")

// embedHeader names the signed embed link an embedded panel sends along:
// the server then judges its private calls by the link alone.
const embedHeader = "X-Riskchart-Embed"

// headersOf is what a panel sends with its private calls.
func headersOf(embedded bool, token string) map[string]string {
	if !embedded {
		return nil
	}
	return map[string]string{embedHeader: token}
}

// fetchTiers asks the server's tier path (signed by the server) for a swap's tiers.
func fetchTiers(ctx context.Context, code string, header map[string]string) (*venueapi.TierEnvelope, error) {
	q := venueapi.TierQuery{ContractCode: code}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	a, err := fetchText(ctx, "GET", origin()+venueapi.PathTiers+"?"+q.Values().Encode(), "", header)
	if err != nil {
		return nil, err
	}
	if a.status == 401 || a.status == 403 {
		return nil, errNoAccess
	}
	var env venueapi.TierEnvelope
	if err := json.Unmarshal([]byte(a.body), &env); err != nil {
		return nil, fmt.Errorf("the server answered HTTP %d with something unreadable", a.status)
	}
	if env.Code != venueapi.CodeOK {
		return nil, fmt.Errorf("%s (code %d)", env.Message, env.Code)
	}
	return &env, nil
}

// fetchLimits asks the server's position-limit path for the account's limits.
func fetchLimits(ctx context.Context, q venueapi.LimitQuery, header map[string]string) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(q) // a struct of strings always encodes
	a, err := fetchText(ctx, "POST", origin()+venueapi.PathPositionLimit, string(body), header)
	if err != nil {
		return nil, err
	}
	if a.status == 401 || a.status == 403 {
		return nil, errNoAccess
	}
	var env venueapi.LimitEnvelope
	if err := json.Unmarshal([]byte(a.body), &env); err != nil {
		return nil, fmt.Errorf("the server answered HTTP %d with something unreadable", a.status)
	}
	if env.Status != venueapi.StatusOK {
		return nil, fmt.Errorf("%s (code %d)", env.ErrMsg, env.ErrCode)
	}
	return &env, nil
}
