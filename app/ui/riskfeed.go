package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/riskchart/riskchart/venueapi"
)

// errNoAccess is the server refusing private data: it has no venue key, or
// this viewer has no token, or this embed no valid link.
var errNoAccess = errors.New("no access to private data on this server")

// accessError is a refusal with the server's own words; it is errNoAccess.
type accessError struct{ reason string }

func (e *accessError) Error() string        { return errNoAccess.Error() + ": " + e.reason }
func (e *accessError) Is(target error) bool { return target == errNoAccess }

// refusal says whether an answer refuses private data: HTTP 401 or 403, or
// the venue's code 403 (unknown key, or one without read permission) under
// any HTTP status, as the gateway relays a key the venue turned down.
func refusal(status, code int, msg string) error {
	if status == http.StatusUnauthorized || status == http.StatusForbidden || code == venueapi.CodeForbidden {
		if msg == "" {
			msg = fmt.Sprintf("HTTP %d", status)
		}
		return &accessError{msg}
	}
	return nil
}

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
	a, err := fetchText(ctx, http.MethodGet, origin()+venueapi.PathTiers+"?"+q.Values().Encode(), "", header)
	if err != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: %w", code, err)
	}
	var env venueapi.TierEnvelope
	jsonErr := json.Unmarshal([]byte(a.body), &env)
	if err := refusal(a.status, env.Code, env.Message); err != nil {
		return nil, err
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("fetching the tiers of %s: the server answered HTTP %d with something unreadable", code, a.status)
	}
	if env.Code != venueapi.CodeOK {
		return nil, fmt.Errorf("fetching the tiers of %s: %s (code %d)", code, env.Message, env.Code)
	}
	return &env, nil
}

// fetchLimits asks the server's position-limit path for the account's limits.
func fetchLimits(ctx context.Context, q venueapi.LimitQuery, header map[string]string) (*venueapi.LimitEnvelope, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("encoding the position-limit query: %w", err)
	}
	a, err := fetchText(ctx, http.MethodPost, origin()+venueapi.PathPositionLimit, string(body), header)
	if err != nil {
		return nil, fmt.Errorf("fetching position limits: %w", err)
	}
	var env venueapi.LimitEnvelope
	jsonErr := json.Unmarshal([]byte(a.body), &env)
	if err := refusal(a.status, env.ErrCode, env.ErrMsg); err != nil {
		return nil, err
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("fetching position limits: the server answered HTTP %d with something unreadable", a.status)
	}
	if env.Status != venueapi.StatusOK {
		return nil, fmt.Errorf("fetching position limits: %s (code %d)", env.ErrMsg, env.ErrCode)
	}
	return &env, nil
}
